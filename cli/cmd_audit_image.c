/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suid2cap audit-image: the audit report of a container image (a `docker
 * save` archive or an OCI layout, as a directory or a tar), with its layers
 * applied in order and whiteouts honoured, without a container engine; each
 * finding names the layer that added the file, proposals a container's
 * default bounding set cannot grant are flagged, and the plan is a
 * Dockerfile RUN line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "db.h"
#include "oci.h"
#include "opts.h"
#include "stage.h"
#include "target.h"
#include "targetrun.h"
#include "util.h"
#include "common.h"

static const char intro[] =
	"Audit a container image without running it: a 'docker save' archive or an OCI\n"
	"image layout (directory or tar).  The layers are applied in order with their\n"
	"whiteouts, so a file removed by a later layer is not reported; each finding\n"
	"names the layer that added the file.  Without --bounding-set, capabilities\n"
	"outside the default bounding set of Docker or Podman containers are flagged;\n"
	"the plan is a Dockerfile RUN line.\n"
	"\f"
	"Exit status: 0 success, 1 --fail-on matched, 2 usage error, 3 the image could not\n"
	"be read, 4 operation failed.\n";

static int opt_platform(const struct opt *o, const char *arg, const char *verb)
{
	if (!strchr(arg, '/'))
		return usage_error(verb, "invalid --platform '%s': expected OS/ARCH such as "
				   "linux/amd64", arg);
	*(const char **)o->value = arg;
	return 0;
}

int cmd_audit_image(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct targetrun tr;
	const char *platform = NULL;
	struct opt opts[] = {
		OPT_TABLE(tr.db.opts),
		OPT_TABLE(tr.out.opts),
		OPT_TABLE(tr.opts),
		OPT_CALLBACK("platform", &platform, "OS/ARCH", "the image of a multi-platform "
			     "index to\naudit (default: the first linux one), e.g.\nlinux/arm64",
			     opt_platform),
		OPT_END(),
	};
	struct rules_db *db = NULL;
	_cleanup_free_ const char **globs = NULL;
	struct target_select sel = { .system_files = true };
	struct stage *run = NULL;
	struct target *t = NULL;
	int first, ex;

	targetrun_init(&tr, ctx, "audit-image", false);
	first = opts_parse(cmd_lookup("audit-image"), opts, intro, argc, argv);
	if (first <= 0)
		return -first;
	if (auditargs_check(&tr.out, "audit-image") ||
	    targetrun_check_input("audit-image", argv[first], true))
		return S2C_EXIT_USAGE;
	ex = targetrun_load(&tr, &db, &globs);
	if (!ex)
		ex = targetrun_stage(&tr, &run);
	sel.lib_globs = globs;
	if (!ex && oci_read(argv[first], platform, &sel, run, "image", &t) < 0) {
		log_error("out of memory");
		ex = S2C_EXIT_FAILURE;
	}
	if (!ex)
		ex = targetrun_audit(&tr, TAKE_PTR(db), &t, 1, run, argv, ctx);
	rules_db_free(db);
	stage_free(run);
	return ex;
}
