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
#include "opts.h"
#include "scanargs.h"
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
	char host[80]; /* "linux/" and a utsname machine */
	struct auditrun_image img = {
		.host = host,
		.waivers_file = AUDITARGS_WAIVERS_FILE, .exclude_file = SCANARGS_EXCLUDE_FILE,
	};
	struct s2c_error err = { 0 };
	struct auditrun run;
	int first, ex, r;

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
	host_platform(host, sizeof(host));
	img.path = argv[first];
	img.platform = platform;
	img.trust = trust;
	r = auditrun_image(targetrun_opts(&tr), &img, targetrun_hooks(&tr, NULL), &run, &err);
	ex = targetrun_report(&tr, &run, r, &err, argv, ctx);
	auditrun_release(&run);
	return ex;
}
