/* One line of /proc/PID/mountinfo (proc(5)), split in place. */
#ifndef AGENTRT_COMMON_MOUNTINFO_H
#define AGENTRT_COMMON_MOUNTINFO_H

/* Pointers into the line; mount_point has its octal escapes decoded (\040
 * for a space...); fstype and super_opts are as the kernel wrote them
 * (super_opts "" when the line has none). */
struct mountinfo_line
{
  long id, parent;
  char *mount_point;
  char *fstype;
  char *super_opts;
};

/* Splits `line` (its newline already cut or not), writing into it.  -1: not
 * a mountinfo line, or an escape that is not one. */
int mountinfo_split (char *line, struct mountinfo_line *m);

/* Decodes mountinfo's octal escapes in place.  -1: a backslash that
 * starts no \ooo escape. */
int mountinfo_unescape (char *s);

#endif
