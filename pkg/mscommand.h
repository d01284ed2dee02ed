/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the maintainer-script evaluator (pkg/maintscript.h): simple
 * commands.  Assignments, calls of the script's functions, the commands that
 * change a file (chmod, chown, chgrp, setcap, dpkg-statoverride) recorded as
 * actions, test and [, the shell's own commands (exit, return, shift, local,
 * export …) and the few whose status tells whether setcap exists.  Not for
 * use outside pkg/maintscript.c and pkg/ms*.c.
 */
#ifndef S2C_PKG_MSCOMMAND_H
#define S2C_PKG_MSCOMMAND_H

#include "mseval.h"

/**
 * Evaluate the simple command @n in @e: its words are expanded, then the
 * command is looked up.  Returns its status (MS_UNKNOWN for a command the
 * evaluator does not know).
 */
enum ms_st mscommand_simple(struct ms_eval *e, const struct sh_node *n);

#endif /* S2C_PKG_MSCOMMAND_H */
