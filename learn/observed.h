/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What one run of `suid2cap learn` observed about a program: the learn
 * record, its summary and its JSON document.
 *
 * A record holds the capability checks the kernel made during one run of the
 * program (BPF) or the checks implied by its syscalls (ptrace), aggregated by
 * capability, result, syscall and kernel function, and the syscalls that
 * failed after a denial.  learn_record_finish() derives the summary: the
 * capabilities used (granted checks), denied (a check failed and so did the
 * operation), denied without effect (the kernel asked, was told no, and took
 * the unprivileged path: setuid(getuid()) asks for cap_setuid first), and
 * quiet kernel probes (CAP_OPT_NOAUDIT, e.g. memory accounting asks for
 * cap_sys_admin on every mmap), which say nothing about the program.
 *
 * learn/run.c fills a record, learn/record.c keeps it on disk and reads it
 * back, and report/learnout.c renders it (the learn report, the observed
 * evidence of explain and audit).
 */
#ifndef S2C_LEARN_OBSERVED_H
#define S2C_LEARN_OBSERVED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;

/** Version of the learn document and of stored records ("schema" key). */
#define LEARN_RECORD_SCHEMA 1

/** How the checks were observed. */
enum learn_mechanism {
	LEARN_BPF,            /**< the kernel's own capability checks, through BPF */
	LEARN_PTRACE,         /**< syscalls and their arguments, through ptrace */
	_LEARN_MECHANISM_MAX,
};

/** One kind of capability check, with how often it happened. */
struct learn_check {
	int cap;              /**< capability number */
	bool granted;
	bool quiet;           /**< a kernel probe (CAP_OPT_NOAUDIT), not a demand */
	char *syscall;        /**< syscall it happened in; NULL outside one or unknown */
	char *where;          /**< kernel function that asked; NULL when unknown */
	uint64_t count;
};

/** A syscall that failed after a capability was denied in it, or (ptrace) with EPERM/EACCES. */
struct learn_failure {
	char *syscall;
	int err;              /**< positive errno */
	uint64_t caps;        /**< capabilities that explain the failure; 0: none known */
	uint64_t count;
};

/** One observed run and its summary. */
struct learn_record {
	char *path;           /**< the program, absolute beneath the root */
	char sha256[65];      /**< of the program's content: the record's key */
	char **argv;          /**< the command line, NULL-terminated */
	char *user;           /**< who it ran as */
	uint32_t uid, gid;
	enum learn_mechanism mechanism;
	char *attach;         /**< what the mechanism hooked: "tracepoint cap_capable", … */
	char *fallback;       /**< why BPF was not used; NULL when it was, or was not asked for */
	uint64_t candidates;  /**< capabilities the command was given */
	bool aware;           /**< the program raises capabilities itself (=p suffices) */
	bool script;          /**< a #! script: the kernel ignores capabilities on it */
	char *time;           /**< when it ran, ISO 8601 UTC */

	int exit_code;        /**< exit status; -1 when killed by a signal */
	int signal;           /**< signal that ended it, 0 when it exited */
	bool timed_out;       /**< stopped at the time limit */
	unsigned timeout;     /**< the time limit in seconds */
	uint64_t elapsed_ms;
	uint64_t processes;   /**< the command and every process it started */
	uint64_t killed;      /**< processes still running at the end, killed */
	uint64_t lost;        /**< checks that could not be counted (maps full) */
	uint64_t untraced;    /**< processes or threads of the run ptrace could not follow */

	struct learn_check *checks;
	size_t n_checks;
	struct learn_failure *failures;
	size_t n_failures;

	/* learn_record_finish() */
	uint64_t used;        /**< granted, not quiet: what the run needed */
	uint64_t denied;      /**< denied, and the operation failed (or outside a syscall) */
	uint64_t denied_harmless; /**< denied only in syscalls that succeeded anyway */
	uint64_t quiet;       /**< kernel probes */
};

/** "bpf", "ptrace". */
const char *learn_mechanism_name(enum learn_mechanism m);

/** Parse a mechanism name; returns the value or -EINVAL. */
int learn_mechanism_from_name(const char *s);

/** The symbolic name of the positive errno @err ("EPERM"), "EUNKNOWN" for none known. */
const char *learn_errno_name(int err);

/** A new, empty record (exit_code 0); NULL on OOM. */
struct learn_record *learn_record_new(void);

/** Free; accepts NULL; returns NULL. */
struct learn_record *learn_record_free(struct learn_record *r);

/**
 * Count @count checks of @cap: add to the entry with the same capability,
 * result, quietness, syscall and kernel function, or append one.
 * @syscall, @where: copied; NULL when unknown.  Returns 0 or -ENOMEM.
 */
int learn_record_add_check(struct learn_record *r, int cap, bool granted, bool quiet,
			   const char *syscall, const char *where, uint64_t count);

/** The same for a failed syscall.  Returns 0 or -ENOMEM. */
int learn_record_add_failure(struct learn_record *r, const char *syscall, int err, uint64_t caps,
			     uint64_t count);

/**
 * Sort the checks and failures into a stable order and compute used,
 * denied, denied_harmless and quiet.
 */
void learn_record_finish(struct learn_record *r);

/** The run ended by itself with exit status 0. */
bool learn_record_succeeded(const struct learn_record *r);

/**
 * Everything the run did was seen: every process and thread followed
 * (untraced 0) and every check counted (lost 0).  An incomplete record may
 * miss capabilities the run used.
 */
bool learn_record_complete(const struct learn_record *r);

/**
 * The record as its JSON document (docs/schema/learn.schema.json without the
 * "rule", "record" and "bpf_support" keys the learn report adds): the form
 * learn/record.c stores and reads back.
 * Returns a new object or NULL on OOM.
 */
struct json_object *learn_record_json(const struct learn_record *r);

#endif /* S2C_LEARN_OBSERVED_H */
