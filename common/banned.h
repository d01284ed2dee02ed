/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Functions this code base must not use, after git's banned.h.
 *
 * Included last by common.h, so any use below it fails to compile with a
 * message naming the replacement.  Unbounded string functions overflow;
 * atoi/atol hide errors; system/popen run a shell; access() is a
 * time-of-check/time-of-use race; the path-based privilege setters follow
 * symlinks and must never appear where privileges are written (use fchmod,
 * fchown, fsetxattr and cap_set_fd on an fd whose identity was checked).
 */
#ifndef S2C_COMMON_BANNED_H
#define S2C_COMMON_BANNED_H

#define S2C_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) S2C_BANNED(strcpy)
#undef strcat
#define strcat(x, y) S2C_BANNED(strcat)
#undef sprintf
#define sprintf(...) S2C_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) S2C_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) S2C_BANNED(strtok)
#undef atoi
#define atoi(x) S2C_BANNED(atoi)
#undef atol
#define atol(x) S2C_BANNED(atol)
#undef gets
#define gets(x) S2C_BANNED(gets)
#undef tmpnam
#define tmpnam(x) S2C_BANNED(tmpnam)
#undef mktemp
#define mktemp(x) S2C_BANNED(mktemp)
#undef system
#define system(x) S2C_BANNED(system)
#undef popen
#define popen(x, y) S2C_BANNED(popen)
#undef access
#define access(x, y) S2C_BANNED(access)
#undef chmod
#define chmod(x, y) S2C_BANNED(chmod)
#undef chown
#define chown(x, y, z) S2C_BANNED(chown)
#undef lchown
#define lchown(x, y, z) S2C_BANNED(lchown)
#undef setxattr
#define setxattr(...) S2C_BANNED(setxattr)
#undef lsetxattr
#define lsetxattr(...) S2C_BANNED(lsetxattr)
#undef cap_set_file
#define cap_set_file(x, y) S2C_BANNED(cap_set_file)

#endif /* S2C_COMMON_BANNED_H */
