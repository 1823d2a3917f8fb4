/* Output formats (see formats.h). */
#include "output/formats.h"

#include <inttypes.h>
#include <string.h>

#include "events/event_fields.h"
#include "events/payload.h"
#include "output/quote.h"

static const char *const names[] = {
	[FMT_TEXT] = "text", [FMT_CSV] = "csv", [FMT_JSON] = "json", [FMT_CHROME] = "chrome",
};

int format_parse(const char *name, enum format *f)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*f = (enum format)i;
			return 0;
		}
	return -1;
}

enum format format_for_path(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strcmp(dot, ".csv"))
		return FMT_CSV;
	if (dot && !strcmp(dot, ".json"))
		return FMT_JSON;
	return FMT_TEXT;
}

const char *format_name(enum format f)
{
	return names[f];
}

static void json_str(FILE *out, const char *s)
{
	quote_string(out, s, true);
}

static void csv_cell(FILE *out, const char *s)
{
	quote_csv_cell(out, s);
}

static void site_name(const struct symbolizer *y, uint64_t site, char *buf, size_t len)
{
	if (site)
		symtab_format(y->syms, site, buf, len);
	else
		snprintf(buf, len, "(removed splice)");
}

static void hex_bytes(FILE *out, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		fprintf(out, "%02x", p[i]);
}

/* A field's value: hex as 0x... (a string in JSON: beyond 2^53 a JSON
 * number loses digits), counts in decimal. */
static void field_value(FILE *out, const struct payload_field *f, bool json)
{
	if (f->fault) {	/* a fetched value whose read faulted at the hit */
		fputs(json ? "null" : "<fault>", out);
		return;
	}
	if (f->str) {
		if (json)
			json_str(out, f->str);
		else
			fputs(f->str, out);
		return;
	}
	if (f->is_signed)
		fprintf(out, "%" PRId64, (int64_t)f->value);
	else if (f->hex)
		fprintf(out, json ? "\"0x%" PRIx64 "\"" : "0x%" PRIx64, f->value);
	else
		fprintf(out, "%" PRIu64, f->value);
}

/* At a function's entry, its parameters by name from the argument
 * registers the payload holds: " | vfs_read(file=0x..., count=4096, ...)". */
static void entry_args(FILE *out, const struct event_log *log, const struct event_rec *r,
		       const struct payload_field *f, size_t n)
{
	static const char *const regs[6] = {
#define GILK_ARG(i, name, member) #name,
#include "gilk_regs.h"
	};
	const struct event_args *a = event_log_args(log, r->splice);
	uint64_t v[6];

	if (!a)
		return;
	if (a->exit) {
		size_t i = 0;
		uint64_t v;

		while (i < n && strcmp(f[i].name, "rax"))
			i++;
		if (i == n || a->ret_void)
			return;
		v = f[i].value;
		if (a->ret_size < 8)	/* the type's bytes of rax, as the caller reads them */
			v &= (1ull << (8 * a->ret_size)) - 1;
		fprintf(out, " | %s returned ", a->func);
		if (a->ret_ptr)
			fprintf(out, "(%s) 0x%" PRIx64, a->ret_type, v);
		else if (a->ret_signed)
			fprintf(out, "%" PRId64, a->ret_size < 8 && (v >> (8 * a->ret_size - 1)) & 1 ?
				(int64_t)(v | ~0ull << (8 * a->ret_size)) : (int64_t)v);
		else
			fprintf(out, "%" PRIu64, v);
		return;
	}
	for (int k = 0; k < a->n; k++) {
		size_t i = 0;

		while (i < n && strcmp(f[i].name, a->block ? a->reg[k] : regs[k]))
			i++;
		if (i == n)
			return;	/* not a payload of the registers */
		v[k] = f[i].value;
	}
	/* mid-function: the locals in registers there, as info scope says */
	fprintf(out, a->block ? " | in %s: " : " | %s(", a->func);
	for (int k = 0; k < a->n; k++) {
		uint64_t x = a->size[k] && a->size[k] < 8 ? v[k] & ((1ull << (8 * a->size[k])) - 1) :
			     v[k];

		fprintf(out, "%s%s=", k ? ", " : "", a->name[k]);
		/* the register's bytes the type has, as the callee reads them */
		if (a->ptr[k])
			fprintf(out, "0x%" PRIx64, v[k]);
		else if (a->sgn[k] && a->size[k] < 8 && (x >> (8 * a->size[k] - 1)) & 1)
			fprintf(out, "%" PRId64, (int64_t)(x | ~0ull << (8 * a->size[k])));
		else if (a->sgn[k])
			fprintf(out, "%" PRId64, (int64_t)x);
		else
			fprintf(out, "%" PRIu64, x);
	}
	if (!a->block)
		fputc(')', out);
}

static void text_event(FILE *out, const struct symbolizer *y, const struct event_log *log,
		       const struct event_rec *r)
{
	struct event_data d;
	const struct payload_field *f = d.f;
	const uint8_t *p = log->bytes + r->off;
	size_t n;
	char task[64];

	event_decode(log, r, &d);
	n = d.npayload;

	event_task(r, task, sizeof(task));
	fprintf(out, "%" PRIu64 ".%09" PRIu64 " cpu%u %s splice %u %s: ", r->ns / 1000000000,
		r->ns % 1000000000, r->cpu, task, r->splice, r->instrument);
	for (size_t i = 0; i < n; i++) {
		char where[320];
		const char *sym;

		fprintf(out, "%s%s=", i ? " " : "", f[i].name);
		field_value(out, &f[i], false);
		/* a kernel address (rip, a pointer) gets its symbol, as in gdb */
		symbolizer_addr(y, f[i].value, false, where, sizeof(where));
		sym = f[i].hex ? strstr(where, " <") : NULL;
		if (sym)
			fputs(sym, out);
	}
	if (!n)
		hex_bytes(out, p, d.payload_len);
	else
		entry_args(out, log, r, f, n);
	/* what the splice fetched, after the registers it came from */
	for (size_t i = n; i < d.n; i++) {
		fprintf(out, "%s%s=", i ? " " : "", f[i].name);
		if (f[i].str && !f[i].fault)
			quote_string(out, f[i].str, false);
		else
			field_value(out, &f[i], false);
	}
	fputc('\n', out);
}

/* The CSV columns after the fixed ones: every field name the events have,
 * in order of first appearance, and "bytes" when some payload is unknown. */
static size_t csv_columns(const struct event_log *log, size_t limit,
			  const char **cols, size_t max, bool *raw)
{
	size_t ncol = 0;

	*raw = false;
	for (size_t i = 0; i < log->n && i < limit; i++) {
		const struct event_rec *r = &log->ev[i];
		struct event_data d;

		event_decode(log, r, &d);
		*raw |= !d.npayload;
		for (size_t k = 0; k < d.n; k++) {
			size_t c = 0;

			while (c < ncol && strcmp(cols[c], d.f[k].name))
				c++;
			if (c == ncol && ncol < max)
				cols[ncol++] = d.f[k].name;
		}
	}
	return ncol;
}

static void csv_events(FILE *out, const struct symbolizer *y, const struct event_log *log,
		       size_t limit)
{
	const char *cols[64];
	bool raw;
	size_t ncol = csv_columns(log, limit, cols, 64, &raw);

	fprintf(out, "time_ns,cpu,pid,tid,comm,context,splice,site,address,instrument");
	for (size_t c = 0; c < ncol; c++)
		fprintf(out, ",%s%s", event_field_in_header(cols[c]) ? "data." : "", cols[c]);
	fprintf(out, raw ? ",bytes\n" : "\n");
	for (size_t i = 0; i < log->n && i < limit; i++) {
		const struct event_rec *r = &log->ev[i];
		const uint8_t *p = log->bytes + r->off;
		struct event_data d;
		char site[160];

		event_decode(log, r, &d);
		site_name(y, r->site, site, sizeof(site));
		fprintf(out, "%" PRIu64 ",%u,", r->ns, r->cpu);
		if (!r->task_gone)
			fprintf(out, "%" PRIu32, r->pid);
		fprintf(out, ",%" PRIu32 ",", r->tid);
		csv_cell(out, r->task_gone ? "" : r->comm);
		fprintf(out, ",%s,%u,", event_context_name(r->context), r->splice);
		csv_cell(out, site);
		fprintf(out, ",0x%" PRIx64 ",", r->site);
		csv_cell(out, r->instrument);
		for (size_t c = 0; c < ncol; c++) {
			fputc(',', out);
			for (size_t k = 0; k < d.n; k++)
				if (!strcmp(d.f[k].name, cols[c])) {
					if (d.f[k].str && !d.f[k].fault)
						csv_cell(out, d.f[k].str);
					else
						field_value(out, &d.f[k], false);
				}
		}
		if (raw) {
			fputc(',', out);
			if (!d.npayload)
				hex_bytes(out, p, d.payload_len);
		}
		fputc('\n', out);
	}
}

/* An event's payload as a JSON object's members (no braces). */
static void json_fields(FILE *out, const struct event_log *log, const struct event_rec *r)
{
	const uint8_t *p = log->bytes + r->off;
	struct event_data d;

	event_decode(log, r, &d);
	if (!d.npayload) {
		fprintf(out, "\"bytes\": \"");
		hex_bytes(out, p, d.payload_len);
		fputc('"', out);
	}
	for (size_t k = 0; k < d.n; k++) {
		fprintf(out, "%s\"%s\": ", k || !d.npayload ? ", " : "", d.f[k].name);
		field_value(out, &d.f[k], true);
	}
}

/* "pid": P, "tid": T, "comm": C, "context": X; an exited task's pid and
 * comm are null. */
static void json_task(FILE *out, const struct event_rec *r)
{
	if (r->task_gone)
		fprintf(out, "\"pid\": null, \"tid\": %" PRIu32 ", \"comm\": null", r->tid);
	else
		fprintf(out, "\"pid\": %" PRIu32 ", \"tid\": %" PRIu32 ", \"comm\": ", r->pid,
			r->tid);
	if (!r->task_gone)
		json_str(out, r->comm);
	fprintf(out, ", \"context\": \"%s\"", event_context_name(r->context));
}

static void json_events(FILE *out, const struct symbolizer *y, const struct event_log *log,
			size_t limit)
{
	fprintf(out, "{\"splices\": ");
	format_splices(out, FMT_JSON, y, log->splices, log->nsplices);
	fprintf(out, ",\n\"events\": [");
	for (size_t i = 0; i < log->n && i < limit; i++) {
		const struct event_rec *r = &log->ev[i];
		char site[160];

		site_name(y, r->site, site, sizeof(site));
		fprintf(out, "%s\n  {\"time_ns\": %" PRIu64 ", \"cpu\": %u, ", i ? "," : "", r->ns,
			r->cpu);
		json_task(out, r);
		fprintf(out, ", \"splice\": %u, \"site\": ", r->splice);
		json_str(out, site);
		fprintf(out, ", \"address\": \"0x%" PRIx64 "\", \"instrument\": ", r->site);
		json_str(out, r->instrument);
		fprintf(out, ", \"data\": {");
		json_fields(out, log, r);
		fprintf(out, "}}");
	}
	fprintf(out, "\n]}\n");
}

/* Instant events on one track per CPU, named by their site. */
static void chrome_events(FILE *out, const struct symbolizer *y, const struct event_log *log,
			  size_t limit)
{
	bool named[65536] = { false };
	const char *sep = "";

	fprintf(out, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [");
	for (size_t i = 0; i < log->n && i < limit; i++) {
		const struct event_rec *r = &log->ev[i];
		char site[160];

		if (!named[r->cpu]) {
			named[r->cpu] = true;
			fprintf(out, "%s\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %u, \"args\": {\"name\": \"CPU %u\"}}",
				sep, r->cpu, r->cpu);
			sep = ",";
		}
		site_name(y, r->site, site, sizeof(site));
		fprintf(out, "%s\n  {\"name\": ", sep);
		json_str(out, site);
		fprintf(out, ", \"cat\": ");
		json_str(out, r->instrument);
		fprintf(out, ", \"ph\": \"i\", \"s\": \"t\", \"ts\": %" PRIu64 ".%03" PRIu64
			", \"pid\": 1, \"tid\": %u, \"args\": {\"splice\": %u, ",
			r->ns / 1000, r->ns % 1000, r->cpu, r->splice);
		json_task(out, r);
		fprintf(out, ", ");
		json_fields(out, log, r);
		fprintf(out, "}}");
		sep = ",";
	}
	fprintf(out, "\n]}\n");
}

void format_event_text(FILE *out, const struct symbolizer *y, const struct event_log *log,
		       size_t i)
{
	text_event(out, y, log, &log->ev[i]);
}

void format_events(FILE *out, enum format f, const struct symbolizer *y,
		   const struct event_log *log, size_t limit)
{
	switch (f) {
	case FMT_TEXT:
		for (size_t i = 0; i < log->n && i < limit; i++)
			text_event(out, y, log, &log->ev[i]);
		break;
	case FMT_CSV:
		csv_events(out, y, log, limit);
		break;
	case FMT_JSON:
		json_events(out, y, log, limit);
		break;
	case FMT_CHROME:
		chrome_events(out, y, log, limit);
		break;
	}
}

static const char *mode_of(const struct gilk_splice_info *i)
{
	return (i->flags & GILK_SPLICE_TRAP) ? "trap" : (i->flags & GILK_SPLICE_JOIN) ? "join" : "jmp";
}

void format_splices_open(FILE *out, enum format f)
{
	if (f == FMT_CSV)
		fprintf(out, "id,site,address,instrument,arg,hits,lost,nested,mode,bug_replayed,"
			"filtered,filter,fetch,aggregation\n");
	else if (f != FMT_TEXT)
		fprintf(out, "[");
}

void format_splice(FILE *out, enum format f, const struct symbolizer *y,
		   const struct gilk_splice_info *p, size_t i)
{
	bool bug = p->flags & GILK_SPLICE_BUG;
	char where[160];

	switch (f) {
	case FMT_TEXT:
		if (!i)
			fprintf(out, "%4s  %-40s %12s %8s %8s %10s  %s\n", "id", "site",
				"hits", "lost", "nested", "filtered", "instrument");
		symbolizer_where(y, p->site, where, sizeof(where));
		fprintf(out, "%4u  %-40s %12" PRIu64 " %8" PRIu64 " %8" PRIu64 " %10" PRIu64
			"  %s%s%s%s%.*s%s%s%s%s\n",
			p->id, where, (uint64_t)p->hits, (uint64_t)p->lost,
			(uint64_t)p->missed, (uint64_t)p->filtered,
			p->agg.kind ? p->agg.text : p->instrument, p->arg[0] ? " " : "", p->arg, p->fetch.len ? " fetch " : "",
			(int)sizeof(p->fetch.text), p->fetch.len ? p->fetch.text : "",
			p->filter[0] ? " if " : "", p->filter,
			(p->flags & GILK_SPLICE_TRAP) ? "  (trap)" :
			(p->flags & GILK_SPLICE_JOIN) ? "  (joined)" : "",
			bug ? "  (BUG/WARN replayed)" : "");
		break;
	case FMT_CSV:
		symtab_format(y->syms, p->site, where, sizeof(where));
		fprintf(out, "%u,", p->id);
		csv_cell(out, where);
		fprintf(out, ",0x%" PRIx64 ",", (uint64_t)p->site);
		csv_cell(out, p->instrument);
		fputc(',', out);
		csv_cell(out, p->arg);
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%s,%" PRIu64 ",",
			(uint64_t)p->hits, (uint64_t)p->lost, (uint64_t)p->missed,
			mode_of(p), bug ? "yes" : "no", (uint64_t)p->filtered);
		csv_cell(out, p->filter);
		fputc(',', out);
		csv_cell(out, p->fetch.len ? p->fetch.text : "");
		fputc(',', out);
		csv_cell(out, p->agg.kind ? p->agg.text : "");
		fputc('\n', out);
		break;
	default:
		symtab_format(y->syms, p->site, where, sizeof(where));
		fprintf(out, "%s\n  {\"id\": %u, \"site\": ", i ? "," : "", p->id);
		json_str(out, where);
		fprintf(out, ", \"address\": \"0x%" PRIx64 "\", \"instrument\": ",
			(uint64_t)p->site);
		json_str(out, p->instrument);
		fprintf(out, ", \"arg\": ");
		json_str(out, p->arg);
		fprintf(out, ", \"hits\": %" PRIu64 ", \"lost\": %" PRIu64
			", \"nested\": %" PRIu64 ", \"mode\": \"%s\", \"bug_replayed\": %s"
			", \"filtered\": %" PRIu64 ", \"filter\": ",
			(uint64_t)p->hits, (uint64_t)p->lost, (uint64_t)p->missed,
			mode_of(p), bug ? "true" : "false", (uint64_t)p->filtered);
		json_str(out, p->filter);
		fprintf(out, ", \"fetch\": ");
		json_str(out, p->fetch.len ? p->fetch.text : "");
		fprintf(out, ", \"aggregation\": ");
		json_str(out, p->agg.kind ? p->agg.text : "");
		fputc('}', out);
		break;
	}
}

void format_splices_close(FILE *out, enum format f, size_t n)
{
	if (f == FMT_TEXT && !n)
		fprintf(out, "no splices\n");
	else if (f != FMT_TEXT && f != FMT_CSV)
		fprintf(out, "%s]", n ? "\n" : "");
}

void format_splices(FILE *out, enum format f, const struct symbolizer *y,
		    const struct gilk_splice_info *all, size_t n)
{
	format_splices_open(out, f);
	for (size_t i = 0; i < n; i++)
		format_splice(out, f, y, &all[i], i);
	format_splices_close(out, f, n);
}
