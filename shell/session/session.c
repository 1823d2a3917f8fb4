/* The shell's session (see session.h). */
#include "session/session.h"

#include "grow.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "events/event_regs.h"
#include "session/lines.h"
#include "session/interrupt.h"
#include "output/pager.h"

int session_open_live(struct session *s, struct gerr *e)
{

	memset(s, 0, sizeof(*s));
	s->out = stdout;
	settings_init(&s->set);
	if (live_open(&s->lv, NULL, e))
		return -1;
	s->live = true;
	s->k = &s->lv.k;
	lines_have(s);	/* symbols' sizes, where the line index is at hand */
	return 0;
}

int session_open_offline(struct session *s, const char *image,
			 const char *symbols, struct gerr *e)
{
	memset(s, 0, sizeof(*s));
	s->out = stdout;
	settings_init(&s->set);
	if (kernel_open(&s->offline, image, symbols, e))
		return -1;
	s->k = &s->offline;
	s->image = strdup(image);
	lines_have(s);
	return 0;
}

struct refresh {
	struct session *s;
	size_t room, fullroom;
};

static int refresh_one(void *ctx, const struct gilk_splice_info *in)
{
	struct refresh *r = ctx;
	struct session *s = r->s;

	if (grow_room((void **)&s->marks, &r->room, s->nmarks + 1, sizeof(*s->marks), 256))
		return -1;
	s->marks[s->nmarks++] = (struct splice_mark){ .site = in->site, .tramp = in->tramp,
		.evict_tramp = in->evict_tramp, .hits = in->hits, .id = in->id,
		.tramp_len = in->tramp_len, .evict_len = in->evict_len };
	if (!live_splice_records(in))
		return 0;
	if (grow_room((void **)&s->spliced, &r->fullroom, s->nspliced + 1, sizeof(*s->spliced), 16))
		return -1;
	s->spliced[s->nspliced++] = *in;
	return 0;
}

void session_splices_refresh(struct session *s)
{
	struct refresh r = { s, 0, 0 };
	struct gerr e;

	free(s->spliced);
	free(s->marks);
	s->spliced = NULL;
	s->marks = NULL;
	s->nspliced = s->nmarks = 0;
	/* none known rather than some: a list cut short would name a
	 * trampoline wrongly, or none of a site's splices */
	if (s->live && live_each_splice(&s->lv, refresh_one, &r, &e))
		s->nspliced = s->nmarks = 0;
}

void session_splices_removing(struct session *s, const struct gilk_splice_info *infos, size_t n,
			      const uint32_t *ids, size_t nids)
{
	for (size_t i = 0; i < n; i++) {
		struct gilk_splice_info *more;
		bool named = false, known = false;

		for (size_t k = 0; k < nids && !named; k++)
			named = ids[k] == infos[i].id;
		/* a count splice (no map) records no events to read later */
		if (!named || (!strcmp(infos[i].instrument, "count") && !infos[i].agg.kind))
			continue;
		for (size_t k = 0; k < s->nspliced && !known; k++)
			if (s->spliced[k].id == infos[i].id) {
				s->spliced[k] = infos[i];
				known = true;
			}
		if (known)
			continue;
		more = realloc(s->spliced, (s->nspliced + 1) * sizeof(*more));
		if (!more)
			return;
		s->spliced = more;
		s->spliced[s->nspliced++] = infos[i];
	}
}

ssize_t session_warn_resume(struct session *s, const struct cfg *g,
			    const struct block *bl)
{
	const struct insn *last = &g->insns[bl->first + bl->count - 1];
	ssize_t next;

	if (last->kind != IK_UD2 || !s->k->facts ||
	    textfacts_bug(s->k->facts, last->addr) != BUG_WARN)
		return -1;
	next = cfg_block_at(g, last->addr + last->len);
	return next >= 0 && g->blocks[next].start == last->addr + last->len ? next : -1;
}

uint64_t session_splice_hits(const struct session *s, uint32_t id)
{
	size_t lo = 0, hi = s->nmarks;

	while (lo < hi) {	/* listed in id order */
		size_t mid = lo + (hi - lo) / 2;

		if (s->marks[mid].id == id)
			return s->marks[mid].hits;
		if (s->marks[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

uint32_t session_splice_at(const struct session *s, uint64_t addr)
{
	for (size_t i = 0; i < s->nmarks; i++)
		if (s->marks[i].site == addr)
			return s->marks[i].id;
	return 0;
}

int session_need_live(const struct session *s, const char *what, struct gerr *e)
{
	if (s->live)
		return 0;
	return gerr_set(e, "%s needs live mode (/dev/gilk, gilk.ko loaded)", what);
}

bool session_is_text(struct session *s, uint64_t addr)
{
	if (addr >= s->k->text_start && addr < s->k->text_end)
		return true;
	return s->live && live_text_kind(&s->lv, addr) == GILK_TEXT_MODULE;
}

static int cmp_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_made(const void *a, const void *b)
{
	return cmp_id(&((const struct made_splice *)a)->id, &((const struct made_splice *)b)->id);
}

/* Kept sorted by id; a splice gone and its id reused by this session is
 * replaced by the new one. Without memory, quit does not offer to remove
 * them: no harm. Nothing is listed: the whole kernel's coverage makes
 * hundreds of thousands, whose list is a gigabyte. */
void session_made(struct session *s, const uint32_t *ids, const struct splice_plan *plans,
		  const uint64_t *tramps, size_t n)
{
	struct made_splice *m;

	if (n)
		s->last_made = ids[n - 1];
	/* it may come to half a million */
	if (grow_room((void **)&s->made, &s->made_room, s->nmade + n + 1, sizeof(*s->made), 64))
		return;
	m = s->made;
	for (size_t i = 0; i < n; i++) {
		struct made_splice key = { ids[i], plans[i].region.addr, tramps[i] }, *old;

		/* ids count up: a later one goes last, a reused one where it was */
		if (!s->nmade || m[s->nmade - 1].id < key.id) {
			m[s->nmade++] = key;
			continue;
		}
		old = bsearch(&key, m, s->nmade, sizeof(*m), cmp_made);
		if (old) {
			*old = key;
			continue;
		}
		m[s->nmade++] = key;
		qsort(m, s->nmade, sizeof(*m), cmp_made);
	}
}

size_t session_made_live(const struct session *s, uint32_t *ids)
{
	size_t n = 0;

	for (size_t k = 0; k < s->nmarks; k++) {
		const struct splice_mark *in = &s->marks[k];
		struct made_splice key = { in->id, 0, 0 };
		const struct made_splice *m = bsearch(&key, s->made, s->nmade, sizeof(key), cmp_made);

		if (m && m->site == in->site && m->tramp == in->tramp)
			ids[n++] = in->id;
	}
	return n;
}

bool session_interrupted(const struct session *s)
{
	return interrupt_pending() || (s->pager && pager_quit(s->pager));
}

/* $NAME, $NAME+N or $NAME-N: a register of the last event shown. */
static int resolve_register(struct session *s, const char *expr, uint64_t *addr,
			    struct gerr *e)
{
	size_t n = strcspn(expr + 1, "+-");
	char name[32], *end;
	uint64_t off = 0;

	if (n >= sizeof(name))
		return gerr_set(e, "%s: no such register", expr);
	memcpy(name, expr + 1, n);
	name[n] = 0;
	if (expr[1 + n]) {
		off = strtoull(expr + 2 + n, &end, 0);
		if (*end || !expr[2 + n])
			return gerr_set(e, "%s: a register, plus or minus a number", expr);
	}
	if (event_regs_value(s, name, addr, e))
		return -1;
	*addr = expr[1 + n] == '-' ? *addr - off : *addr + off;
	return 0;
}

int session_resolve(struct session *s, const char *expr, uint64_t *addr,
		    struct gerr *e)
{
	const struct ksym *copy;
	size_t n = strcspn(expr, "+@");

	if (expr[0] == '$')
		return resolve_register(s, expr, addr, e);

	if (symtab_resolve_as(s->k->syms, expr, addr, &copy, e))
		return -1;
	/* the name given is not the kernel's: say which it stands for */
	if (copy) {
		fprintf(s->out, "(%.*s is %s, the compiler's copy of it)\n", (int)n, expr,
			copy->name);
	} else if (n < 256) {
		char name[256];

		/* of aliases (__x64_sys_X, __ia32_sys_X), the one named is
		 * the one shown from now on */
		memcpy(name, expr, n);
		name[n] = 0;
		symtab_prefer(s->k->syms, name);
	}
	return 0;
}

int session_cfg(struct session *s, uint64_t addr, const struct ksym **sym,
		struct gerr *e)
{
	uint64_t fs, fe;
	char where[160];

	if (symtab_function(s->k->syms, addr, sym, &fs, &fe)) {
		session_where(s, addr, where, sizeof(where));
		return gerr_set(e, "%s is not inside a kernel function", where);
	}
	if (s->live && live_load_text(&s->lv, fs, e))
		return -1;
	return kernel_cfg(s->k, fs, &s->cfg, e);
}

uint64_t session_block_site(struct session *s, uint64_t addr)
{
	struct splice_env env;
	struct gerr e;

	if (s->live)
		return live_block_site(&s->lv, addr);
	if (kernel_window(s->k, addr, 160, &s->w, &e))
		return addr;
	kernel_env(s->k, &s->w, &env);
	return splice_site_for_block(&env, addr);
}

int session_plan(struct session *s, uint64_t site, unsigned flags,
		 struct splice_plan *p, struct gerr *e)
{
	struct splice_env env;
	char where[160];
	const char *lim;

	if (s->live)
		return live_plan(&s->lv, site, flags, p, e);
	memset(p, 0, sizeof(*p));
	if (kernel_window(s->k, site, 160, &s->w, e)) {
		p->reason = SR_NOT_TEXT;
		return -1;
	}
	kernel_env(s->k, &s->w, &env);
	env.flags = flags;
	if (splice_plan(&env, site, p) == 0)
		return 0;
	session_where(s, p->reason_addr, where, sizeof(where));
	lim = splice_limit_str(p);
	return gerr_set(e, "cannot splice at 0x%" PRIx64 ": %s (at %s%s%s)", site,
			splice_reason_str(p->reason), where,
			lim ? ", where it cannot grow: " : "", lim ? lim : "");
}

int session_read(struct session *s, uint64_t addr, void *buf, size_t len,
		 struct gerr *e)
{
	if (s->live)
		return live_read_mem(&s->lv, addr, buf, len, e);
	return kimage_read(s->k->img, addr, buf, len, e);
}

struct symbolizer session_symbolizer(const struct session *s)
{
	return (struct symbolizer){ s->k->syms, s->live ? s->marks : NULL,
				    s->live ? s->nmarks : 0 };
}

void session_where(struct session *s, uint64_t addr, char *buf, size_t len)
{
	const struct symbolizer y = session_symbolizer(s);

	symbolizer_where(&y, addr, buf, len);
}

void session_where_as(struct session *s, uint64_t addr, const char *expr,
		      char *buf, size_t len)
{
	const struct ksym *given;
	uint64_t fs, fe;
	char name[256];

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(expr, "+"), expr);
	if (symtab_by_name(s->k->syms, name, &given, 1) == 1 &&
	    symtab_function(s->k->syms, addr, NULL, &fs, &fe) == 0 && given->addr == fs) {
		if (addr == fs)
			snprintf(buf, len, "%s (0x%" PRIx64 ")", name, addr);
		else
			snprintf(buf, len, "%s+0x%" PRIx64 " (0x%" PRIx64 ")", name, addr - fs, addr);
		return;
	}
	session_where(s, addr, buf, len);
}
