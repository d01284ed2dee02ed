/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "audit.h"
#include "compliance.h"
#include "host.h"
#include "jsonout.h"
#include "common.h"

/*
 * The ids, titles and versions below were checked against the sources each
 * control names: ComplianceAsCode's control files, which map the CIS
 * benchmarks section by section at the version they name; the checks of
 * docker-bench-security, written for the CIS Docker Benchmark v1.6.0; and
 * DISA's own XCCDF of the Red Hat Enterprise Linux 5 STIG.  The current DISA
 * STIGs for Linux (RHEL 7 to 9, Ubuntu) have no rule on set-ID files
 * themselves, only nosuid mount options, which no finding here is about, so
 * the STIG rules are those of the UNIX STIG family (GEN002380, GEN002440).
 */
#define CAC "https://github.com/ComplianceAsCode/content/blob/" \
	"b3a2cca9352cbcefb7f00d770bfd6f679da18d6a/"
#define DOCKER_BENCH "https://github.com/docker/docker-bench-security/blob/" \
	"ff26d67f25be60fc2d82a01710ee14570b2cb9db/tests/4_container_images.sh"
#define STIG_RHEL5 "https://github.com/mitre/inspec-profile-update-action/blob/" \
	"6311abf16dcbc9e7262a4c49eed9270d878ef3ac/benchmarks/DISA/" \
	"U_RedHat_5_STIG_V1R18_Manual-xccdf.xml"

/* The findings about a privileged file's set-ID bits and what they grant, and S2C008. */
#define SETID ((1u << AUDIT_MIGRATE) | (1u << AUDIT_DROP) | (1u << AUDIT_KEEP) | \
	       (1u << AUDIT_REVIEW) | (1u << AUDIT_DISGUISE))
#define WRITABLE (1u << AUDIT_WRITABLE)

static const struct compliance_benchmark
	debian12 = { "CIS Debian Linux 12 Benchmark", "CIS Debian 12", "1.1.0", "debian", false },
	debian13 = { "CIS Debian Linux 13 Benchmark", "CIS Debian 13", "1.0.0", "debian", false },
	ubuntu2404 = { "CIS Ubuntu Linux 24.04 LTS Benchmark", "CIS Ubuntu 24.04", "1.0.0",
		       "ubuntu", false },
	rhel9 = { "CIS Red Hat Enterprise Linux 9 Benchmark", "CIS RHEL 9", "2.0.0", "rhel",
		  false },
	rhel10 = { "CIS Red Hat Enterprise Linux 10 Benchmark", "CIS RHEL 10", "1.0.1", "rhel",
		   false },
	sle15 = { "CIS SUSE Linux Enterprise 15 Benchmark", "CIS SLE 15", "1.1.1", "sles", false },
	docker = { "CIS Docker Benchmark", "CIS Docker", "1.6.0", NULL, true },
	stig = { "DISA Red Hat Enterprise Linux 5 STIG (UNIX STIG rules)", "DISA UNIX STIG",
		 "V1R18", NULL, false };

static const char reviewed[] = "Ensure SUID and SGID files are reviewed";
static const char secured[] = "Ensure world writable files and directories are secured";

static const struct compliance_control controls[] = {
	{ &debian12, "7.1.13", reviewed, CAC "controls/cis_debian12.yml", SETID },
	{ &debian12, "7.1.11", secured, CAC "controls/cis_debian12.yml", WRITABLE },
	{ &debian13, "7.1.13", reviewed, CAC "controls/cis_debian13.yml", SETID },
	{ &debian13, "7.1.11", secured, CAC "controls/cis_debian13.yml", WRITABLE },
	{ &ubuntu2404, "7.1.13", reviewed, CAC "controls/cis_ubuntu2404.yml", SETID },
	{ &ubuntu2404, "7.1.11", secured, CAC "controls/cis_ubuntu2404.yml", WRITABLE },
	{ &rhel9, "7.1.13", reviewed, CAC "products/rhel9/controls/cis_rhel9.yml", SETID },
	{ &rhel9, "7.1.11", secured, CAC "products/rhel9/controls/cis_rhel9.yml", WRITABLE },
	{ &rhel10, "7.1.13", reviewed, CAC "products/rhel10/controls/cis_rhel10.yml", SETID },
	{ &rhel10, "7.1.11", secured, CAC "products/rhel10/controls/cis_rhel10.yml", WRITABLE },
	{ &sle15, "6.1.11", "Audit SUID executables", CAC "controls/cis_sle15.yml", SETID },
	{ &sle15, "6.1.12", "Audit SGID executables", CAC "controls/cis_sle15.yml", SETID },
	{ &sle15, "6.1.8", "Ensure no world writable files exist", CAC "controls/cis_sle15.yml",
	  WRITABLE },
	{ &docker, "4.8", "Ensure setuid and setgid permissions are removed", DOCKER_BENCH, SETID },
	{ &stig, "GEN002380", "The owner, group-owner, mode, ACL, and location of files with the "
	  "setuid bit set must be documented using site-defined procedures (V-801, "
	  "SV-37579r4_rule)", STIG_RHEL5, SETID },
	{ &stig, "GEN002440", "The owner, group-owner, mode, ACL and location of files with the "
	  "setgid bit set must be documented using site-defined procedures (V-802, "
	  "SV-37628r3_rule)", STIG_RHEL5, SETID },
};

const struct compliance_control *compliance_controls(size_t *ret_n)
{
	*ret_n = S2C_ELEMENTSOF(controls);
	return controls;
}

/* Whether the target is of distribution @os: its ID, or one of its ID_LIKE when no
 * benchmark is written for its ID. */
static bool of_os(const struct host *h, const char *os)
{
	bool own = false;

	for (size_t i = 0; i < S2C_ELEMENTSOF(controls) && !own; i++)
		own = controls[i].benchmark->os_id &&
		      s2c_streq(controls[i].benchmark->os_id, h->os_id);
	if (s2c_streq(h->os_id, os))
		return true;
	for (size_t i = 0; !own && h->os_like && h->os_like[i]; i++)
		if (s2c_streq(h->os_like[i], os))
			return true;
	return false;
}

bool compliance_applies(const struct compliance_control *c, const struct host *h, bool image)
{
	const struct compliance_benchmark *b = c->benchmark;

	if (b->image && !image)
		return false;
	if (!b->os_id || !h || !h->os_id)
		return true;
	return of_os(h, b->os_id);
}

bool compliance_for(const struct compliance_control *c, const struct audit *a)
{
	bool image = a->targets && a->n_targets && s2c_streq(a->targets[0].kind, "image");

	return compliance_applies(c, a->host, image);
}

size_t compliance_applying(const struct audit *a, const struct compliance_control **ret)
{
	size_t n = 0;

	static_assert(S2C_ELEMENTSOF(controls) <= COMPLIANCE_MAX, "COMPLIANCE_MAX is too small");
	for (size_t i = 0; i < S2C_ELEMENTSOF(controls); i++)
		if (compliance_for(&controls[i], a))
			ret[n++] = &controls[i];
	return n;
}

int compliance_table(const struct audit *a, const struct compliance_cells *w, FILE *out)
{
	const struct compliance_control *v[COMPLIANCE_MAX], *c;
	size_t n = compliance_applying(a, v);
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++) {
		c = v[i];
		if (i == 0)
			(void)fputs(w->head, out);
		(void)fputs(w->row_start, out);
		r = w->text(out, c->benchmark->name);
		(void)fprintf(out, "%s%s%s", w->sep, c->benchmark->version, w->sep);
		if (r == 0)
			r = w->link(out, c->id, c->source);
		(void)fputs(w->sep, out);
		if (r == 0)
			r = w->text(out, c->title);
		(void)fputs(w->findings, out);
		for (unsigned k = 0; k < _AUDIT_FINDING_MAX; k++)
			if (c->findings & (1u << k))
				(void)fprintf(out, "%s%s%s", w->finding[0],
					      audit_finding_info((enum audit_finding)k)->id, w->finding[1]);
		(void)fputs(w->row_end, out);
	}
	if (n)
		(void)fputs(w->foot, out);
	return r;
}

struct json_object *compliance_json(const struct audit *a, unsigned f)
{
	_cleanup_jsonput_ struct json_object *arr = json_object_new_array();
	const struct compliance_control *v[COMPLIANCE_MAX];
	size_t n = compliance_applying(a, v);

	for (size_t i = 0; arr && i < n; i++) {
		const struct compliance_control *c = v[i];
		struct json_object *o;

		if (!(c->findings & (1u << f)))
			continue;
		o = json_object_new_object();
		if (jsonout_push(arr, o) < 0 ||
		    jsonout_add_string(o, "benchmark", c->benchmark->name) < 0 ||
		    jsonout_add_string(o, "version", c->benchmark->version) < 0 ||
		    jsonout_add_string(o, "id", c->id) < 0 ||
		    jsonout_add_string(o, "title", c->title) < 0 ||
		    jsonout_add_string(o, "source", c->source) < 0)
			return NULL;
	}
	return TAKE_PTR(arr);
}
