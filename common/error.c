/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "common.h"

static int normalise(int code)
{
	if (code > 0)
		return -code;
	return code ? code : -EINVAL;
}

S2C_PRINTF(2, 0) static void vformat(struct s2c_error *err, const char *fmt, va_list ap)
{
	int n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);

	if (n >= (int)sizeof(err->msg))
		memcpy(err->msg + sizeof(err->msg) - 4, "...", 4);
}

S2C_PRINTF(3, 0) static int vset(struct s2c_error *err, int code, const char *fmt, va_list ap)
{
	code = normalise(code);
	if (err) {
		err->code = code;
		vformat(err, fmt, ap);
	}
	return code;
}

int s2c_error_set(struct s2c_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

int s2c_error_errno(struct s2c_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	code = vset(err, code, fmt, ap);
	va_end(ap);
	if (!err)
		return code;
	len = strlen(err->msg);
	if (len < sizeof(err->msg) - 1)
		(void)snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(-code));
	return code;
}

int s2c_error_prefix(struct s2c_error *err, const char *fmt, ...)
{
	char old[S2C_ERROR_MAX];
	char pre[S2C_ERROR_MAX];
	va_list ap;

	if (!s2c_error_isset(err))
		return err ? normalise(err->code) : -EINVAL;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	(void)vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	if (snprintf(err->msg, sizeof(err->msg), "%s: %s", pre, old) >= (int)sizeof(err->msg))
		memcpy(err->msg + sizeof(err->msg) - 4, "...", 4);
	return normalise(err->code);
}

void s2c_error_clear(struct s2c_error *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}
