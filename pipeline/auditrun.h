/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A package or image audit from its inputs to the report's model, in one
 * call: the rules database, the run's private stage, the readers of pkg/
 * (batch_read() for packages, oci_read() for an image), and the decisions
 * and plans of pipeline/targetaudit.h.  What the caller alone may do is
 * asked of it through hooks: loading the rules database (its options and
 * messages), guarding the stage so that a signal removes it, and showing
 * progress.  What went wrong comes back as data for the caller to name.
 */
#ifndef S2C_PIPELINE_AUDITRUN_H
#define S2C_PIPELINE_AUDITRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "batch.h"
#include "decide.h"
#include "stage.h"
#include "targetaudit.h"

struct rules_db;
struct s2c_error;

/** What the caller does for a run.  A hook that fails has said why. */
struct auditrun_hooks {
	/** Load the rules database: this host's (@root NULL), or with the local layer beneath
	 * the image's @root.  Returns 0 or -ECANCELED. */
	int (*load_rules)(const char *root, struct rules_db **ret, void *userdata);
	/** Begin and end a hold on signals: the stage is made and guarded within one. */
	void (*hold)(void *userdata);
	void (*release)(void *userdata);
	/** Have a signal remove the stage @name in @dirfd.  Returns 0 or -ECANCELED. */
	int (*guard)(int dirfd, const char *name, void *userdata);
	/** The stage is gone: forget its guard. */
	void (*unguard)(void *userdata);
	/** After each package is read (on a worker thread); NULL: nothing. */
	batch_progress_fn progress;
	void *userdata;
};

/** The settings every run shares. */
struct auditrun_opts {
	const char *tmpdir;           /**< where the stage is made (absolute) */
	struct stage_limits lim;
	struct decide_target dt;      /**< --kernel and --bounding-set */
	unsigned threads;             /**< packages read at once */
};

/** An image to read. */
struct auditrun_image {
	const char *path;
	const char *platform;         /**< oci_read()'s: NULL, "os/arch", "all" */
	const char *host;             /**< this host's platform ("linux/amd64") */
	bool trust;                   /**< use the image's own waivers and rules.d */
	const char *waivers_file;     /**< the image's own configuration files, named on the */
	const char *exclude_file;     /**< target whenever found, and whether used */
};

/** What stopped a run that returned an error. */
enum auditrun_stop {
	AUDITRUN_FAILED,              /**< the error and its message */
	AUDITRUN_OVER_BUDGET,         /**< a target passed the memory budget */
	AUDITRUN_TAMPERED,            /**< a blob does not match its digest */
	AUDITRUN_HOOK_FAILED,         /**< a hook failed, and said why */
};

/** A run: its result and what the result points into. */
struct auditrun {
	enum auditrun_stop stop;      /**< after an error */
	struct targetaudit ta;        /**< after 0: the report's model */
	struct target **targets;      /**< the targets read (borrowed from @ta once built) */
	size_t n;
	bool decided;                 /**< the targets went to targetaudit_build() */
	struct rules_db *db;
	struct stage *run;
	const struct auditrun_hooks *hooks;
	bool guarded;
};

/**
 * Audit the packages of @l (@follow: symbolic links given as operands are
 * followed) as @o says, through @h.  Returns 0 with @out->ta the report's
 * model, or -errno with @out->stop saying why: AUDITRUN_OVER_BUDGET (-ENOBUFS;
 * nothing decided; those with error_code -ENOBUFS in @out->targets to be
 * named), AUDITRUN_HOOK_FAILED (-ECANCELED), AUDITRUN_FAILED (@err, before
 * deciding, @out->decided false, or while deciding).  In every case release
 * @out with auditrun_release().
 */
int auditrun_pkgs(const struct auditrun_opts *o, const struct batch_list *l, bool follow,
		  const struct auditrun_hooks *h, struct auditrun *out, struct s2c_error *err);

/**
 * Audit the image @img as @o says, through @h: as auditrun_pkgs(), and
 * AUDITRUN_TAMPERED (-EBADMSG) when a blob does not match its digest (nothing
 * decided; those with bad_digest in @out->targets to be named).  The image's own configuration
 * files are noted on its target; with @img->trust its rules.d is loaded
 * through @h->load_rules.
 */
int auditrun_image(const struct auditrun_opts *o, const struct auditrun_image *img,
		   const struct auditrun_hooks *h, struct auditrun *out, struct s2c_error *err);

/** Free the model, the targets, the database and the stage (its guard forgotten). */
void auditrun_release(struct auditrun *r);

#endif /* S2C_PIPELINE_AUDITRUN_H */
