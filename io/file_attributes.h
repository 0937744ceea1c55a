/* SPDX-License-Identifier: MIT */
/* What a file is besides its bytes: owner, group, extended attributes (POSIX ACLs and
 * security labels among them) and mode. The output copies them from the file it replaces
 * onto the temp twin, so that renaming the twin over the original changes nothing but the
 * content. Functions return 0 or a negative errno. */
#ifndef GPUSORT_FILE_ATTRIBUTES_H
#define GPUSORT_FILE_ATTRIBUTES_H

/* Gives to_fd the owner, group, extended attributes and mode of from_fd, and removes
 * extended attributes from_fd lacks (a default ACL the directory gave the new file).
 * 0 only when to_fd then has every one of them exactly; otherwise (-EPERM: an owner or
 * group we may not give, -EACCES: an attribute we may not read, -ENOTSUP, ...) to_fd is
 * left part way and must not stand in for the original. */
int file_attributes_copy(int from_fd, int to_fd);

#endif
