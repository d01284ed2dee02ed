/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the security.capability decoder: any bytes must decode or be refused
 * cleanly, and whatever decodes must survive encode/decode and rendering.
 */
#include <stdlib.h>
#include <string.h>

#include "fcaps.h"
#include "error.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fcaps c, d;
	struct s2c_error err = { 0 };
	unsigned char buf[FCAPS_BLOB_MAX];
	char *text;
	int n;

	if (size > FUZZ_MAX_INPUT)
		return 0;
	if (fcaps_decode(data, size, &c, &err) < 0) {
		if (!err.msg[0])
			abort();        /* every refusal says why */
		return 0;
	}
	if (size != 12 && size != 20 && size != 24)
		abort();                /* only exact sizes decode */
	text = fcaps_to_text(&c);
	if (!text)
		abort();
	free(text);
	if (c.version == 1)
		return 0;
	n = fcaps_encode(&c, buf);
	if (n != (int)size || memcmp(buf, data, size) != 0)
		abort();                /* v2/v3 round-trip byte for byte */
	if (fcaps_decode(buf, (size_t)n, &d, NULL) < 0 || !fcaps_equal(&c, &d))
		abort();
	return 0;
}
