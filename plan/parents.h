/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Holding back what apply would refuse, when the plan is made.
 *
 * apply changes a file only when every directory from the root down to it is
 * owned by root and not writable by group or others (plan/fileop.h): the
 * owner of any other directory could swap the file between the checks and the
 * change.  A plan says so up front: such a change becomes action "none", with
 * the directory and what is wrong with it as the reason and in a warning.  The
 * verdict and the state after stay, so the packaging snippets still say what
 * the package should ship; apply and the shell script leave the file alone.
 */
#ifndef S2C_PLAN_PARENTS_H
#define S2C_PLAN_PARENTS_H

struct plan;
struct plan_entry;

/**
 * Called for each entry parents_check() holds back.
 * @why  which directory and what is wrong with it, e.g. "directory '/opt/x'
 *       is not owned by root: its owner could replace the file".
 */
typedef void (*parents_held_fn)(void *userdata, const struct plan_entry *e, const char *why);

/**
 * Hold back every "change" entry of @p whose directories, beneath @rootfd,
 * are not all owned by root and unwritable by group and others, or cannot be
 * reached without a symbolic link: the action becomes "none", the reason
 * names the directory, and a warning saying the same is added.
 * @held      optional, called for each entry held back.
 * Returns the number of entries held back, or -ENOMEM (the plan is then
 * partly checked and must be freed).
 */
int parents_check(struct plan *p, int rootfd, parents_held_fn held, void *userdata);

#endif /* S2C_PLAN_PARENTS_H */
