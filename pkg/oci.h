/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading a container image without a container engine: a `docker save`
 * archive (manifest.json, a config and layer tars, possibly symlinks to one
 * another) or an OCI image layout (oci-layout, index.json, blobs/), either as
 * a directory or as a tar.  The layers are applied in order into one member
 * table, as an overlay would: a later entry replaces an earlier one, a
 * ".wh.NAME" whiteout removes NAME (and all below it) of the lower layers, a
 * ".wh..wh..opq" makes its directory opaque (everything the lower layers put
 * below it goes); a file whited out in a later layer is gone from the image
 * and from the audit.  Each member remembers the layer that added it.
 *
 * Blobs are found inside the image only: in a tar, a symlinked layer tar
 * ("abc/layer.tar -> ../def/layer.tar", which docker writes for repeated
 * layers) is resolved among the tar's own members and may not leave it; in a
 * directory, files are opened with openat2(RESOLVE_BENEATH), so a symlink out
 * of the layout is refused.  An uncompressed tar is read by seeking to each
 * layer; a compressed one is spooled into the private stage first.
 */
#ifndef S2C_PKG_OCI_H
#define S2C_PKG_OCI_H

#include <stddef.h>
#include <stdint.h>

struct stage;
struct target;
struct target_select;

/** Largest JSON document (index, manifest, config) read, in bytes. */
#define OCI_JSON_MAX (4u << 20)
/** Most layers applied. */
#define OCI_LAYERS_MAX 1024

/**
 * Read the image at @path (a tar file or an OCI layout directory), keeping
 * what @sel asks for in a new stage @stage_name (then "@stage_name-2", …)
 * inside @run.  From a multi-platform index, @platform picks the images:
 * "os/arch[/variant]" the first of that platform, "all" every linux one,
 * NULL the one of @host ("linux/amd64"), else the only one there is; each
 * target notes the platforms not audited.  Every blob is checked against its
 * digest as it is read: the documents, the config, each layer as stored and
 * uncompressed (its diff_id).
 * Returns 0 with a new array of targets in @ret (at least one; free each and
 * the array; t->error set for an image that could not be read, and
 * t->bad_digest when that is because a blob does not match its digest), or
 * -ENOMEM.
 */
int oci_read(const char *path, const char *platform, const char *host,
	     const struct target_select *sel, struct stage *run, const char *stage_name,
	     struct target ***ret, size_t *ret_n);

/**
 * The capabilities of @caps (bit n = capability n) that a container does not
 * get by default, so a file capability set containing them cannot work in it
 * (execve(2) fails with EPERM) unless the container is run with --cap-add:
 * outside Docker's default bounding set (AUDIT_WRITE, CHOWN, DAC_OVERRIDE,
 * FOWNER, FSETID, KILL, MKNOD, NET_BIND_SERVICE, NET_RAW, SETFCAP, SETGID,
 * SETPCAP, SETUID, SYS_CHROOT) in @ret_docker, and outside Podman's (the same
 * without AUDIT_WRITE, MKNOD and NET_RAW) in @ret_podman.
 */
void oci_outside_bounding(uint64_t caps, uint64_t *ret_docker, uint64_t *ret_podman);

#endif /* S2C_PKG_OCI_H */
