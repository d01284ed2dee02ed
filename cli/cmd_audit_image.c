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
#include <sys/utsname.h>

#include "auditargs.h"
#include "cli.h"
#include "config.h"
#include "db.h"
#include "oci.h"
#include "opts.h"
#include "scanargs.h"
#include "stage.h"
#include "target.h"
#include "targetrun.h"
#include "util.h"
#include "common.h"

static const char intro[] =
	"Audit a container image without running it: a 'docker save' archive or an OCI\n"
	"image layout (directory or tar).  The layers are applied in order with their\n"
	"whiteouts, as containerd and umoci apply them, so a file removed by a later\n"
	"layer is not reported; each finding names the layer that added the file.  Every\n"
	"blob is checked against its digest.  Without --bounding-set, capabilities\n"
	"outside the default bounding set of Docker or Podman containers are flagged;\n"
	"the plan is a Dockerfile RUN line.  The image is untrusted: its own waivers and\n"
	"rules are not used unless --trust-image-config says so.\n"
	"\f"
	"Exit status: 0 success, 1 --fail-on matched, 2 usage error or a blob that does\n"
	"not match its digest, 3 the image could not be read or its audit is incomplete,\n"
	"4 operation failed.\n";

static int opt_platform(const struct opt *o, const char *arg, const char *verb)
{
	if (!strchr(arg, '/') && !s2c_streq(arg, "all"))
		return usage_error(verb, "invalid --platform '%s': expected OS/ARCH such as "
				   "linux/amd64, or all", arg);
	*(const char **)o->value = arg;
	return 0;
}

/* The OCI platform of this host: "linux/" and uname's machine in OCI's words. */
static void host_platform(char *buf, size_t size)
{
	static const struct {
		const char *machine, *oci;
	} arch[] = {
		{ "x86_64", "amd64" }, { "aarch64", "arm64" }, { "i686", "386" }, { "i386", "386" },
		{ "armv7l", "arm/v7" }, { "armv6l", "arm/v6" }, { "ppc64le", "ppc64le" },
		{ "s390x", "s390x" }, { "riscv64", "riscv64" }, { "mips64", "mips64le" },
		{ "loongarch64", "loong64" },
	};
	struct utsname u;
	const char *a = NULL;

	if (uname(&u) == 0) {
		a = u.machine;
		for (size_t i = 0; i < S2C_ELEMENTSOF(arch); i++)
			if (s2c_streq(u.machine, arch[i].machine))
				a = arch[i].oci;
	}
	(void)snprintf(buf, size, "linux/%s", a ? a : "unknown");
}

/* The image's own configuration beneath its root, which the audit uses only when trusted. */
static const char *const own_config[] = { AUDITARGS_WAIVERS_FILE, S2C_SYSCONF_DBDIR,
					  SCANARGS_EXCLUDE_FILE };

/*
 * Say on @t which of its own configuration files were found, and whether they are used.
 * Returns 0, or S2C_EXIT_FAILURE after printing why.
 */
static int note_own_config(struct target *t, bool trusted)
{
	int r = 0;

	for (size_t i = 0; i < S2C_ELEMENTSOF(own_config) && r == 0; i++) {
		if (!memberset_exists(&t->members, own_config[i]))
			continue;
		if (s2c_streq(own_config[i], SCANARGS_EXCLUDE_FILE))
			r = target_note(t, "the image's own %s is not used: an image is not walked, "
					"every file of it is audited", own_config[i]);
		else if (trusted)
			r = target_note(t, "the image's own %s is used (--trust-image-config)",
					own_config[i]);
		else
			r = target_note(t, "the image's own %s is not used: the image is untrusted "
					"(--trust-image-config uses it)", own_config[i]);
	}
	if (r < 0) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	return S2C_EXIT_OK;
}

/*
 * With --trust-image-config, the rules database again with the image's own rules.d in place
 * of this host's, as `audit --root` loads a root's.  Returns 0 or an exit code after printing.
 */
static int trusted_rules(const struct targetrun *tr, const struct target *t, struct rules_db **db)
{
	_cleanup_free_ char *root = NULL;
	struct rules_db *own = NULL;
	int ex;

	if (!t->stage)
		return 0;
	root = path_join(stage_dir(t->stage), "root");
	if (!root) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	ex = dbargs_load_root(&tr->db, root, &own);
	if (ex)
		return ex;
	rules_db_free(*db);
	*db = own;
	return 0;
}

/* A blob that does not match its digest: nothing of the run is reported. */
static int refuse_tampered(struct target *const *v, size_t n)
{
	int ex = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i]->bad_digest) {
			_cleanup_free_ char *shown = shown_path(v[i]->source);
			log_error("'%s' is not the image its digests say: %s",
				  shown ? shown : v[i]->source, v[i]->error);
			ex = S2C_EXIT_USAGE;
		}
	return ex;
}

/* Read the image into @v; its configuration noted, and used when trusted.  Returns 0 or an
 * exit code after printing. */
static int read_image(const struct targetrun *tr, const char *path, const char *platform,
		      bool trust, const struct target_select *sel, struct stage *run,
		      struct rules_db **db, struct target ***v, size_t *n)
{
	char host[80]; /* "linux/" and a utsname machine */
	int ex = 0;

	host_platform(host, sizeof(host));
	if (oci_read(path, platform, host, sel, run, "image", v, n) < 0) {
		log_error("out of memory");
		return S2C_EXIT_FAILURE;
	}
	ex = refuse_tampered(*v, *n);
	for (size_t i = 0; !ex && i < *n; i++)
		if (!(*v)[i]->error)
			ex = note_own_config((*v)[i], trust);
	if (!ex && trust && *n == 1 && !(*v)[0]->error)
		ex = trusted_rules(tr, (*v)[0], db);
	return ex;
}

int cmd_audit_image(int argc, char **argv, struct s2c_ctx *ctx)
{
	struct targetrun tr;
	const char *platform = NULL;
	bool trust = false;
	struct opt opts[] = {
		OPT_TABLE(tr.db.opts),
		OPT_TABLE(tr.out.opts),
		OPT_TABLE(tr.opts),
		OPT_CALLBACK("platform", &platform, "OS/ARCH", "the image of a multi-platform "
			     "index to\naudit, e.g. linux/arm64, or all for every one\n(default: "
			     "this host's platform)", opt_platform),
		OPT_BOOL(0, "trust-image-config", &trust, "use the image's own waivers and "
			 "rules.d\n(default: an image is untrusted; its own\nconfiguration is "
			 "named in the report, not used)"),
		OPT_END(),
	};
	struct rules_db *db = NULL;
	_cleanup_free_ const char **globs = NULL;
	struct target_select sel = { .system_files = true };
	struct stage *run = NULL;
	struct target **v = NULL;
	size_t n = 0;
	int first, ex;

	targetrun_init(&tr, ctx, "audit-image", false);
	ex = opts_parse(cmd_lookup("audit-image"), opts, intro, argc, argv, &first);
	if (ex || !first)
		return ex;
	if (auditargs_check(&tr.out, "audit-image") ||
	    targetrun_check_input("audit-image", argv[first], true))
		return S2C_EXIT_USAGE;
	if (trust && platform && s2c_streq(platform, "all"))
		return usage_error("audit-image", "--trust-image-config audits one image: not with "
				   "--platform all");
	tr.trust_image = trust;
	ex = targetrun_load(&tr, &db, &globs);
	if (!ex)
		ex = targetrun_stage(&tr, &run);
	sel.lib_globs = globs;
	if (!ex)
		ex = read_image(&tr, argv[first], platform, trust, &sel, run, &db, &v, &n);
	if (!ex) {
		ex = targetrun_audit(&tr, TAKE_PTR(db), v, n, run, argv, ctx);
		n = 0;
	}
	for (size_t i = 0; i < n; i++)
		target_free(v[i]);
	free(v);
	rules_db_free(db);
	targetrun_unstage(&tr, run);
	return ex;
}
