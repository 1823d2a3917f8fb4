/* The session's C types (see types.h). */
#include "session/types.h"

#include <unistd.h>

#include "session/lines.h"

int types_get(struct session *s, struct ktypes **t, struct gerr *e)
{
	if (!s->types) {
		if (s->live ? ktypes_open_file("/sys/kernel/btf/vmlinux", &s->types, e) :
		    ktypes_open_image(s->k->img, &s->types, e))
			return -1;
	}
	*t = s->types;
	return 0;
}

void types_free(struct session *s)
{
	ktypes_close(s->types);
	s->types = NULL;
}

int types_of_var(struct session *s, const char *name, struct ktype *ty, struct gerr *e)
{
	struct kernel_lines *kl;
	struct ktypes *t;
	const char *text;
	struct gerr why;

	if (types_get(s, &t, e))
		return -1;
	if (lines_index(s, &kl, &why))
		return gerr_set(e, "'%s' has unknown type: variables' types come from the line index, and %s",
				name, why.msg);
	text = lineindex_var_type(kl->li, name);
	if (!text)
		return gerr_set(e, "'%s' has unknown type (the kernel's debug information gives it none, or several); cast it to its declared type: *(TYPE *)&%s",
				name, name);
	return ktypes_parse(t, text, ty, e);
}

/* Reads 8 bytes or a member of a task. */
static int read_u64(struct session *s, uint64_t addr, uint64_t *v, struct gerr *e)
{
	return session_read(s, addr, v, sizeof(*v), e);
}

int types_current(struct session *s, uint64_t *addr, struct gerr *e)
{
	struct ktype task;
	struct kmember tasks, pid;
	struct ktypes *t;
	uint64_t head, next;
	int32_t want = (int32_t)getpid(), got;

	if (!s->live)
		return gerr_set(e, "current is gilk's own task, in the running kernel: live only");
	if (types_get(s, &t, e) || ktypes_parse(t, "struct task_struct", &task, e) ||
	    ktypes_member(t, &task, "tasks", &tasks, e) || ktypes_member(t, &task, "pid", &pid, e) ||
	    session_resolve(s, "init_task", &head, e))
		return -1;
	next = head + tasks.offset;
	for (int i = 0; i < 1000000; i++) {
		if (read_u64(s, next, &next, e))
			return -1;
		if (next == head + tasks.offset)
			break;
		if (session_read(s, next - tasks.offset + pid.offset, &got, sizeof(got), e))
			return -1;
		if (got == want) {
			*addr = next - tasks.offset;
			return 0;
		}
	}
	return gerr_set(e, "gilk's own task (pid %d) is not on the kernel's task list", (int)want);
}
