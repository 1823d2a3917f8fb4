/* show: the settings, or the versions of what gilk talks to. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "commands/commands.h"

/* The kernel's own banner ("Linux version ..."), from wherever this session
 * reads memory: the image offline, the running kernel live. */
static void kernel_banner(struct session *s, char *buf, size_t len)
{
	const struct ksym *b;
	struct gerr e;

	snprintf(buf, len, "(no linux_banner in the symbols)");
	if (symtab_by_name(s->k->syms, "linux_banner", &b, 1) != 1 ||
	    session_read(s, b->addr, buf, len - 1, &e)) {
		snprintf(buf, len, "(linux_banner cannot be read)");
		return;
	}
	buf[len - 1] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

static int show_version(struct session *s, struct gerr *e)
{
	char banner[256];

	fprintf(s->out, "gilk: ioctl ABI %d, %s mode\n", GILK_ABI_VERSION,
		s->live ? "live" : "offline");
	if (s->live) {
		struct gilk_version v;

		if (live_version(&s->lv, &v, e))
			return -1;
		fprintf(s->out, "gilk.ko: ioctl ABI %u, batches of up to %u splices\n", v.abi,
			v.max_batch);
	}
	kernel_banner(s, banner, sizeof(banner));
	fprintf(s->out, "kernel: %s\n", banner);
	return 0;
}

static int show_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	if (argc == 2 && !strcmp(argv[1], "version"))
		return show_version(s, e);
	if (settings_show(&s->set, s->out, argc == 2 ? argv[1] : NULL, e)) {
		char all[256];

		settings_list(all, sizeof(all));
		return gerr_set(e, "show what? version, or a setting: %s", all);
	}
	return 0;
}

static const char *const what[] = { "version", NULL };

const struct command cmd_show = {
	.name = "show",
	.group = GROUP_SESSION,
	.run = show_command,
	.min_args = 0,
	.max_args = 1,
	.usage = "show [version|SETTING]",
	.help = "Shows one setting, or all of them with what each does (\"set\" changes\n"
		"them; \"help set\" lists them); \"show version\" the ioctl ABI of gilk\n"
		"and of gilk.ko, and the kernel's own version banner.",
	.complete = COMPLETE_SETTING,
	.words = what,
};
