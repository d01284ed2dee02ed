/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building a decision: reason, warnings, evidence, capability set.
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "decision.h"
#include "engine.h"
#include "util.h"
#include "common.h"

/* Format the reason (@warning false) or a new warning of @d. */
S2C_PRINTF(3, 0) static int put_text(struct decision *d, bool warning, const char *format, va_list ap)
{
	char *s;

	/* After decision_share() the sentences are the pool's (decision_add_warning()). */
	assert(!d->shared);
	s = strdup_vprintf(format, ap);
	if (!s)
		return -ENOMEM;
	if (!warning) {
		free(d->reason);
		d->reason = s;
		return 0;
	}
	for (size_t i = 0; i < d->n_warnings; i++)
		if (s2c_streq(d->warnings[i], s)) {
			free(s);
			return 0;
		}
	return strv_push(&d->warnings, &d->n_warnings, s);
}

int decision_set_reason(struct decision *d, const char *format, ...)
{
	va_list ap;
	int r;

	va_start(ap, format);
	r = put_text(d, false, format, ap);
	va_end(ap);
	return r;
}

int decision_warn(struct decision *d, const char *format, ...)
{
	va_list ap;
	int r;

	va_start(ap, format);
	r = put_text(d, true, format, ap);
	va_end(ap);
	return r;
}

int decision_add_evidence(struct decision *d, char *what, uint64_t caps, enum strength strength,
			  enum evidence_kind kind, const char *note)
{
	struct evidence_item *ne;

	if (!what)
		return -ENOMEM;
	for (size_t i = 0; i < d->n_evidence; i++)
		if (s2c_streq(d->evidence[i].what, what) && d->evidence[i].caps == caps &&
		    d->evidence[i].kind == kind) {
			free(what);
			return 0;
		}
	ne = realloc(d->evidence, (d->n_evidence + 1) * sizeof(*ne));
	if (!ne) {
		free(what);
		return -ENOMEM;
	}
	d->evidence = ne;
	d->evidence[d->n_evidence++] = (struct evidence_item){ what, caps, strength, kind, note };
	return 0;
}

int decision_set_caps(struct decision *d, const struct fcaps *caps)
{
	free(d->caps_text);
	d->caps = *caps;
	d->has_caps = true;
	d->caps_text = fcaps_to_text(caps);
	return d->caps_text ? 0 : -ENOMEM;
}
