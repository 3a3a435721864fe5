# SPDX-License-Identifier: GPL-2.0
import math
import unittest

import stats

# Student's t quantiles (two-sided 95%) from published tables.
T_975 = {1: 12.7062047362, 2: 4.30265272975, 9: 2.26215716280,
         30: 2.04227245630, 1000: 1.96233908082}


class TDistributionTest(unittest.TestCase):
    def test_critical_values(self) -> None:
        for df, want in T_975.items():
            self.assertAlmostEqual(stats.t_critical(df), want, places=6)

    def test_p_values(self) -> None:
        # t = 2.262157 at 9 df is the 5% two-sided point.
        self.assertAlmostEqual(stats.t_two_sided_p(T_975[9], 9), 0.05,
                               places=7)
        self.assertAlmostEqual(stats.t_two_sided_p(0.0, 5), 1.0)
        # df = 1 is the Cauchy distribution: P(|T| >= 1) = 1/2.
        self.assertAlmostEqual(stats.t_two_sided_p(1.0, 1), 0.5, places=9)

    def test_betainc_symmetry(self) -> None:
        for a, b, x in ((2.0, 3.0, 0.3), (0.5, 4.5, 0.9), (7.0, 0.5, 0.2)):
            self.assertAlmostEqual(stats.betainc(a, b, x),
                                   1 - stats.betainc(b, a, 1 - x), places=12)
        # I_x(1, 1) = x.
        self.assertAlmostEqual(stats.betainc(1.0, 1.0, 0.37), 0.37)


class WelchTest(unittest.TestCase):
    def test_known_vector(self) -> None:
        # scipy.stats.ttest_ind([1,2,3,4,5], [2,3,4,5,6], equal_var=False)
        t, df, p = stats.welch([1, 2, 3, 4, 5], [2, 3, 4, 5, 6])
        self.assertAlmostEqual(t, -1.0)
        self.assertAlmostEqual(df, 8.0)
        self.assertAlmostEqual(p, 0.34659350708733416, places=9)

    def test_unequal_variances(self) -> None:
        # The example of Welch's test on Wikipedia (A1, A2 of "Examples").
        a = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6,
             23.1, 19.6, 19.0, 21.7, 21.4]
        b = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2,
             21.9, 22.1, 22.9, 20.5, 24.4]
        t, df, p = stats.welch(a, b)
        self.assertAlmostEqual(t, -2.46, places=2)
        self.assertAlmostEqual(df, 24.99, places=1)
        self.assertAlmostEqual(p, 0.021, places=3)

    def test_identical_constant_samples(self) -> None:
        self.assertEqual(stats.welch([3, 3], [3, 3])[2], 1.0)


    def test_difference_interval(self) -> None:
        # var = 2 * (5/3) / 4, df = 6, t(0.975, 6) = 2.446912.
        self.assertAlmostEqual(stats.difference_half_width(
            [1, 2, 3, 4], [2, 3, 4, 5]), 2.446912 * (5 / 6) ** 0.5, 4)
        self.assertEqual(stats.difference_half_width([3, 3], [4, 4]), 0.0)


class CompareTest(unittest.TestCase):
    def test_interval_of_the_mean(self) -> None:
        s = stats.summarize([10, 12, 11, 13, 9, 11, 10, 12, 11, 11])
        self.assertAlmostEqual(s.mean, 11.0)
        self.assertAlmostEqual(s.sd, math.sqrt(12 / 9))
        self.assertAlmostEqual(s.half_width,
                               T_975[9] * math.sqrt(12 / 9) / math.sqrt(10),
                               places=6)

    def test_marks_follow_the_seeds(self) -> None:
        base = [100, 101, 99, 100, 102, 98, 100, 101, 99, 100]
        faster = [x * 0.7 for x in base]
        slower = [x * 1.3 for x in base]
        same = [x + 0.1 for x in base]
        self.assertEqual(stats.compare(base, faster).mark, '(I)')
        self.assertAlmostEqual(stats.compare(base, faster).change_pct, -30.0)
        self.assertEqual(stats.compare(base, slower).mark, '(R)')
        self.assertEqual(stats.compare(base, same).mark, '')
        # Where bigger is better (a throughput), the marks swap.
        self.assertEqual(stats.compare(base, slower, False).mark, '(I)')


if __name__ == '__main__':
    unittest.main()
