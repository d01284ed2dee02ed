/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plan of an image as a Dockerfile snippet: one RUN instruction to add
 * on top of the audited image, which sets the capabilities first and then
 * clears the set-ID bits (never neither), file by file, and checks nothing
 * else: the build runs on the image it was planned for.  Every command is a
 * list of its own under "set -e", so the build stops at the first that fails
 * (a failing setcap says so): an image that builds has every change.  Names go to the
 * shell single-quoted; a name a Dockerfile line cannot carry safely (a
 * control character, invalid UTF-8) is left out with a comment.  Building
 * needs setcap in the image (Debian: libcap2-bin, Fedora: libcap).
 */
#ifndef S2C_PLAN_DOCKERFILE_H
#define S2C_PLAN_DOCKERFILE_H

#include <stdio.h>

struct plan;

/**
 * Write the snippet for @p, made for the image @image (a tag or digest, in a
 * comment), to @out.  Only "change" entries become commands; the others are
 * comments.  Returns 0, -ENOMEM, or -EIO when @out reports an error.
 */
int dockerfile_emit(const struct plan *p, const char *image, FILE *out);

#endif /* S2C_PLAN_DOCKERFILE_H */
