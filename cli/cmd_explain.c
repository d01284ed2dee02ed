/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap explain: the full reasoning about one file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cli.h"
#include "dbargs.h"
#include "decisionout.h"
#include "engine.h"
#include "facts.h"
#include "jsonout.h"
#include "learned.h"
#include "learnout.h"
#include "scan.h"
#include "scanargs.h"
#include "skip.h"
#include "term.h"
#include "common.h"

static const char intro[] =
	"Explain the decision about each PATH: facts, matched rule and why, ELF\n"
	"evidence, conditions evaluated, verdict, capabilities, risk and sources, and\n"
	"what `suid2cap learn` observed when it has a record of the program.\n";

static const char *const formats[] = { "text", "json", NULL };

int cmd_explain(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct scanargs s;
	struct dbargs db;
	int format = 0;
	struct opt opts[] = {
		OPT_TABLE(s.opts),
		OPT_TABLE(db.opts),
		OPT_CHOICE("format", &format, formats, "FMT", "text (default) or json"),
		TERM_OPT_COLOR,
		OPT_END(),
	};
	struct scan_result *res = NULL;
	struct decisions ds;
	struct learn_record **learned = NULL;
	bool json, color;
	int r, ex, first;

	scanargs_init(&s, ctx, 0);
	dbargs_init(&db);
	ex = opts_parse(cmd_lookup("explain"), opts, intro, argc, argv, &first);
	if (ex || !first)
		return ex;
	json = format == 1;
	color = term_color(STDOUT_FILENO);
	if (scanargs_finish(&s, argc, argv, first, "explain"))
		return S2C_EXIT_USAGE;
	ex = decide_scan(&db, &s, ctx, &res, &ds);
	if (ex)
		return ex;
	learned = learned_load(s.root, ds.v, ds.n);
	if (json) {
		_cleanup_jsonput_ struct json_object *a = json_object_new_array();
		for (size_t i = 0; a && i < ds.n; i++) {
			struct json_object *o = decisionout_json(ds.v[i]);
			/* Observed evidence, when learn has a record of the program. */
			if (o && learned && learned[i])
				(void)jsonout_add(o, "learned", learnout_evidence_json(learned[i]));
			(void)json_object_array_add(a, o);
		}
		r = a ? jsonout_write(a, stdout) : -ENOMEM;
	} else {
		r = 0;
		for (size_t i = 0; i < ds.n && r == 0; i++) {
			if (i)
				(void)fputc('\n', stdout);
			r = decisionout_explain(ds.v[i], color, stdout);
			if (r == 0 && learned && learned[i])
				r = learnout_explain(learned[i], ds.v[i], color, stdout);
		}
	}
	learned_free(learned, ds.n);
	for (int i = first; i < argc; i++) {
		bool found = false;
		const char *norm = s.operands[i - first];
		const struct skip_entry *sk = scan_result_skipped(res, norm);
		for (size_t j = 0; j < res->n && !found; j++)
			found = strcmp(res->v[j]->path, norm) == 0;
		if (!found && sk && skip_reason_is_other_root(sk->reason))
			log_notice("'%s' was not looked at: '%s' is another system's (%s); explain it "
				   "with --root or --other-roots", argv[i], sk->path,
				   skip_reason_text(sk->reason));
		else if (!found && sk)
			log_notice("'%s' was not looked at: '%s' is excluded (%s)", argv[i],
				   sk->path, sk->source ? sk->source : "excluded");
		else if (!found && !res->warnings)
			log_notice("'%s' is not setuid, not setgid and has no capabilities (or is not "
				   "a regular file): nothing to decide", argv[i]);
	}
	ex = r < 0 ? S2C_EXIT_FAILURE : res->warnings ? S2C_EXIT_INCOMPLETE : S2C_EXIT_OK;
	decisions_release(&ds);
	scan_result_free(res);
	return ex;
}
