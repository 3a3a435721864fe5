// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin that counts, per benchmark sample, what the guest
 * executed: instructions, DSB, ISB, DMB and TLBI, the TLBIs by operation.
 *
 * The harness (lib/mm_bench.c) brackets each timed sample with two
 * unallocated HINT instructions, which the architecture executes as NOPs:
 * HINT #0x70 opens a window, HINT #0x71 closes it. At each close the
 * plugin writes one line to QEMU's log (-d plugin -D FILE):
 *
 *   mm_window N insns=I irq_insns=H irqs=Q dsb=D isb=S dmb=M tlbi=T ops=vale1is:3,vae1is:1
 *
 * irq_insns are the instructions of the window executed in interrupt
 * handlers, from the IRQ's entry at its vector (given as the plugin
 * argument vectors=ADDR, the kernel's VBAR_EL1, from System.map: the
 * kernels have no KASLR) to the eret that ends it, the softirqs run on
 * its exit included; irqs how many were taken. They are part of insns:
 * timer and IPI work lands at other instructions when the code of the
 * kernel moves, so the host reports insns - irq_insns as the operation's
 * own. Without the argument both are 0.
 *
 * N counts windows from 0 in the order they close; the harness prints its
 * sample lines in the same order, which is how the host ties a window to
 * its sample (scripts/tcg_counts.py). The counters are global: meant for
 * the icount clock's single vCPU, where they are exact. The two HINTs are
 * inside the window and counted with it.
 *
 * Built against the qemu-plugin.h of the QEMU that runs it (Debian's
 * source package of the installed qemu-system-arm).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define HINT_WINDOW_OPEN	0xd5032e1fu	/* hint #0x70 */
#define HINT_WINDOW_CLOSE	0xd5032e3fu	/* hint #0x71 */

/* DSB, DMB, ISB: the barrier group of HINT space, any CRm (option). */
#define BARRIER_MASK	0xfffff0ffu
#define DSB		0xd503309fu
#define DMB		0xd50330bfu
#define ISB		0xd50330dfu

/* SYS with CRn == 8 is TLBI (op1, CRm and op2 name the operation). */
#define SYS_MASK	0xfff80000u
#define SYS		0xd5080000u

#define ERET		0xd69f03e0u
/* The IRQ entries of the EL1 vector table: from EL1 (SP_ELx), from EL0. */
#define VECTOR_IRQ_EL1H	0x280
#define VECTOR_IRQ_EL0	0x480
#define VECTORS_SIZE	0x800

enum counter { C_INSN, C_DSB, C_ISB, C_DMB, C_TLBI, C_IRQ_INSN, C_IRQ,
	       NR_COUNTERS };

/* The EL1 TLBI operations (op1 == 0), by CRm and op2. */
static const char *const tlbi_el1[8][8] = {
	[1] = { "vmalle1os", "vae1os", "aside1os", "vaae1os",
		NULL, "vale1os", NULL, "vaale1os" },
	[2] = { NULL, "rvae1is", NULL, "rvaae1is",
		NULL, "rvale1is", NULL, "rvaale1is" },
	[3] = { "vmalle1is", "vae1is", "aside1is", "vaae1is",
		NULL, "vale1is", NULL, "vaale1is" },
	[5] = { NULL, "rvae1os", NULL, "rvaae1os",
		NULL, "rvale1os", NULL, "rvaale1os" },
	[6] = { NULL, "rvae1", NULL, "rvaae1",
		NULL, "rvale1", NULL, "rvaale1" },
	[7] = { "vmalle1", "vae1", "aside1", "vaae1",
		NULL, "vale1", NULL, "vaale1" },
};

#define NR_OPS 64
static uint64_t counters[NR_COUNTERS];
static uint64_t opened[NR_COUNTERS];
static const char *op_names[NR_OPS];
static uint64_t op_counts[NR_OPS];
static uint64_t op_opened[NR_OPS];
static unsigned int nr_ops;
static unsigned int windows;
static GMutex lock;
static uint64_t vectors;
/* Exceptions being handled (an IRQ can nest in a softirq on irq exit). */
static unsigned int depth;
static uint64_t depth_insns;

/* The index of a TLBI operation's counter, made at translation time. */
static unsigned int tlbi_op(uint32_t insn)
{
	unsigned int op1 = (insn >> 16) & 7, crm = (insn >> 8) & 15;
	unsigned int op2 = (insn >> 5) & 7, i;
	const char *name = NULL;
	static char other[NR_OPS][24];

	if (op1 == 0 && crm < 8)
		name = tlbi_el1[crm][op2];
	g_mutex_lock(&lock);
	if (!name) {
		snprintf(other[nr_ops], sizeof(other[0]), "op1_%u_crm_%u_op2_%u",
			 op1, crm, op2);
		name = other[nr_ops];
	}
	for (i = 0; i < nr_ops; i++)
		if (!strcmp(op_names[i], name))
			break;
	if (i == nr_ops && nr_ops < NR_OPS - 1)
		op_names[nr_ops++] = name;
	g_mutex_unlock(&lock);
	return i < NR_OPS - 1 ? i : NR_OPS - 1;
}

static void count(unsigned int vcpu_index, void *udata)
{
	counters[GPOINTER_TO_UINT(udata)]++;
}

static void count_tlbi(unsigned int vcpu_index, void *udata)
{
	counters[C_TLBI]++;
	op_counts[GPOINTER_TO_UINT(udata)]++;
}

/*
 * An exception taken: at the first instruction of its vector. The count
 * of instructions at its entry is kept; at the eret that returns from the
 * outermost one, what ran since goes to the IRQ counters, for IRQs only
 * (a synchronous exception of the operation, a fault, is its own work).
 */
static unsigned int irq_entry;

static void exception_entry(unsigned int vcpu_index, void *udata)
{
	if (depth++ == 0) {
		depth_insns = counters[C_INSN] - 1;
		irq_entry = GPOINTER_TO_UINT(udata);
	}
}

static void exception_return(unsigned int vcpu_index, void *udata)
{
	if (!depth || --depth)
		return;
	if (irq_entry) {
		/* The eret's inline add has run: it is the handler's too. */
		counters[C_IRQ_INSN] += counters[C_INSN] - depth_insns;
		counters[C_IRQ]++;
	}
}

static void window_open(unsigned int vcpu_index, void *udata)
{
	memcpy(opened, counters, sizeof(opened));
	memcpy(op_opened, op_counts, sizeof(op_opened));
}

static void window_close(unsigned int vcpu_index, void *udata)
{
	GString *line = g_string_new(NULL);
	unsigned int i;
	gboolean first = TRUE;

	g_string_printf(line, "mm_window %u insns=%" PRIu64 " irq_insns=%"
			PRIu64 " irqs=%" PRIu64 " dsb=%" PRIu64
			" isb=%" PRIu64 " dmb=%" PRIu64 " tlbi=%" PRIu64 " ops=",
			windows++, counters[C_INSN] - opened[C_INSN],
			counters[C_IRQ_INSN] - opened[C_IRQ_INSN],
			counters[C_IRQ] - opened[C_IRQ],
			counters[C_DSB] - opened[C_DSB],
			counters[C_ISB] - opened[C_ISB],
			counters[C_DMB] - opened[C_DMB],
			counters[C_TLBI] - opened[C_TLBI]);
	for (i = 0; i < nr_ops; i++) {
		uint64_t n = op_counts[i] - op_opened[i];

		if (!n)
			continue;
		g_string_append_printf(line, "%s%s:%" PRIu64, first ? "" : ",",
				       op_names[i], n);
		first = FALSE;
	}
	if (first)
		g_string_append(line, "-");
	g_string_append_c(line, '\n');
	qemu_plugin_outs(line->str);
	g_string_free(line, true);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint32_t op;

		uint64_t vaddr = qemu_plugin_insn_vaddr(insn);

		qemu_plugin_register_vcpu_insn_exec_inline(
			insn, QEMU_PLUGIN_INLINE_ADD_U64, &counters[C_INSN], 1);
		if (vectors && vaddr >= vectors &&
		    vaddr < vectors + VECTORS_SIZE && !(vaddr % 0x80)) {
			unsigned int slot = vaddr - vectors;

			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, exception_entry, QEMU_PLUGIN_CB_NO_REGS,
				GUINT_TO_POINTER(slot == VECTOR_IRQ_EL1H ||
						 slot == VECTOR_IRQ_EL0));
		}
		if (qemu_plugin_insn_size(insn) != 4)
			continue;
		memcpy(&op, qemu_plugin_insn_data(insn), 4);
		if (op == ERET) {
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, exception_return, QEMU_PLUGIN_CB_NO_REGS,
				NULL);
		} else if (op == HINT_WINDOW_OPEN) {
			/* After the inline add: the window holds its opening. */
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, window_open, QEMU_PLUGIN_CB_NO_REGS, NULL);
		} else if (op == HINT_WINDOW_CLOSE) {
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, window_close, QEMU_PLUGIN_CB_NO_REGS, NULL);
		} else if ((op & BARRIER_MASK) == DSB) {
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, count, QEMU_PLUGIN_CB_NO_REGS,
				GUINT_TO_POINTER(C_DSB));
		} else if ((op & BARRIER_MASK) == ISB) {
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, count, QEMU_PLUGIN_CB_NO_REGS,
				GUINT_TO_POINTER(C_ISB));
		} else if ((op & BARRIER_MASK) == DMB) {
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, count, QEMU_PLUGIN_CB_NO_REGS,
				GUINT_TO_POINTER(C_DMB));
		} else if ((op & SYS_MASK) == SYS && ((op >> 12) & 15) == 8) {
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, count_tlbi, QEMU_PLUGIN_CB_NO_REGS,
				GUINT_TO_POINTER(tlbi_op(op)));
		}
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	if (strcmp(info->target_name, "aarch64")) {
		fprintf(stderr, "mm_counts: an aarch64 plugin, not for %s\n",
			info->target_name);
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "vectors=", 8))
			vectors = g_ascii_strtoull(argv[i] + 8, NULL, 0);
	}
	op_names[NR_OPS - 1] = "more";
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
