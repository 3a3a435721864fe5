// SPDX-License-Identifier: GPL-2.0
/* See console_watch.h. */
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/printk.h>

#include "console_watch.h"

static struct {
	spinlock_t lock;
	struct task_struct *task;
	const char *text;
	const char *also;
	char line[160];
} watch = { .lock = __SPIN_LOCK_UNLOCKED(watch.lock) };

static void probe_console(void *ignore, const char *buf, size_t len)
{
	unsigned long flags;

	spin_lock_irqsave(&watch.lock, flags);
	if (watch.task == current && !watch.line[0] &&
	    strnstr(buf, watch.text, len) &&
	    (!watch.also || strnstr(buf, watch.also, len)))
		strscpy(watch.line, buf, min(len + 1, sizeof(watch.line)));
	spin_unlock_irqrestore(&watch.lock, flags);
}

int console_watch_register(void)
{
	return register_trace_console(probe_console, NULL);
}

void console_watch_unregister(void)
{
	unregister_trace_console(probe_console, NULL);
	tracepoint_synchronize_unregister();
}

void console_watch_stop(void)
{
	unsigned long flags;

	spin_lock_irqsave(&watch.lock, flags);
	watch.task = NULL;
	spin_unlock_irqrestore(&watch.lock, flags);
}

static void console_watch_stop_action(void *unused)
{
	console_watch_stop();
}

void console_watch_start(struct kunit *test, const char *text,
			 const char *also)
{
	unsigned long flags;

	spin_lock_irqsave(&watch.lock, flags);
	watch.text = text;
	watch.also = also;
	watch.line[0] = '\0';
	watch.task = current;
	spin_unlock_irqrestore(&watch.lock, flags);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			console_watch_stop_action, NULL), 0);
}

const char *console_watch_line(void)
{
	return watch.line;
}
