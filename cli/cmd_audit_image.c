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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "db.h"
#include "oci.h"
#include "stage.h"
#include "target.h"
#include "targetrun.h"
#include "util.h"
#include "common.h"

enum {
	ARG_PLATFORM = 0x200,
};

static const char help_text[] =
	"Audit a container image without running it: a 'docker save' archive or an OCI\n"
	"image layout (directory or tar).  The layers are applied in order with their\n"
	"whiteouts, so a file removed by a later layer is not reported; each finding\n"
	"names the layer that added the file.  Capabilities outside the default bounding\n"
	"set of Docker or Podman containers are flagged; the plan is a Dockerfile RUN line.\n"
	"\n"
	"  FILE|DIR          the image\n"
	"  --platform OS/ARCH  the image of a multi-platform index to audit (default: the\n"
	"                    first linux one), e.g. linux/arm64\n"
	"  --db DIR          add a rules directory on top of the bundled and /etc ones\n"
	"  --kernel VER      evaluate kernel conditions for VER instead of the running kernel\n"
	AUDITARGS_HELP
	TARGETRUN_HELP
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 success, 1 --fail-on matched, 2 usage error, 3 the image could not\n"
	"be read, 4 operation failed.\n";

int cmd_audit_image(int argc, char **argv, struct s2c_ctx *ctx)
{
	static const struct option opts[] = {
		DBARGS_OPTIONS,
		AUDITARGS_OPTIONS,
		TARGETRUN_OPTIONS,
		{ "platform", required_argument, NULL, ARG_PLATFORM },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct targetrun tr;
	const char *platform = NULL;
	struct rules_db *db = NULL;
	_cleanup_free_ const char **globs = NULL;
	struct target_select sel = { .system_files = true };
	struct stage *run = NULL;
	struct target *t = NULL;
	int c, r, ex;

	targetrun_init(&tr, ctx, "audit-image");
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		r = targetrun_option(&tr, c, optarg);
		if (r < 0)
			return -r;
		if (r > 0)
			continue;
		switch (c) {
		case 'h':
			cmd_print_usage(cmd_lookup("audit-image"), stdout);
			(void)fputs(help_text, stdout);
			return S2C_EXIT_OK;
		case ARG_PLATFORM:
			if (!strchr(optarg, '/'))
				return usage_error("audit-image", "invalid --platform '%s': expected "
						   "OS/ARCH such as linux/amd64", esc(optarg));
			platform = optarg;
			break;
		case '?':
			return usage_error("audit-image", "unknown or incomplete option '%s'",
					   argv[optind - 1]);
		default:
			return usage_error("audit-image", "unexpected option");
		}
	}
	if (argc - optind != 1)
		return usage_error("audit-image", argc - optind ? "one image at a time" :
				   "no image given");
	ex = targetrun_load(&tr, &db, &globs);
	if (!ex)
		ex = targetrun_stage(&tr, &run);
	sel.lib_globs = globs;
	if (!ex && oci_read(argv[optind], platform, &sel, run, "image", &t) < 0) {
		log_error("out of memory");
		ex = S2C_EXIT_FAILURE;
	}
	if (!ex)
		ex = targetrun_audit(&tr, TAKE_PTR(db), &t, 1, run, argv, ctx);
	rules_db_free(db);
	stage_free(run);
	return ex;
}
