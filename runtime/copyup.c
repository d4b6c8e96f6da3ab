/* tmpcopyup (see copyup.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/copyup.h"

#define COPYUP_MAX_DEPTH 16

struct linux_dirent64
{
  unsigned long long d_ino;
  long long d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

static int copy_dir (int srcfd, int dstfd, int depth, const char *dest,
                     struct child_error *cerr);

static int
copy_file (int srcdir, int dstdir, const char *name, const struct stat *st)
{
  int in, out, r = 0;
  off_t off = 0;

  in = openat (srcdir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (in < 0)
    return -errno;
  out = openat (dstdir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                st->st_mode & 07777);
  if (out < 0)
    {
      r = -errno;
      close (in);
      return r;
    }
  while (off < st->st_size)
    {
      ssize_t n = sendfile (out, in, &off, (size_t) (st->st_size - off));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          r = n < 0 ? -errno : 0;
          break;
        }
    }
  if (r == 0 && fchown (out, st->st_uid, st->st_gid) < 0)
    r = -errno;
  close (in);
  close (out);
  return r;
}

static int
copy_entry (int srcfd, int dstfd, const char *name, int depth,
            const char *dest, struct child_error *cerr)
{
  struct stat st;
  char link[4096];
  ssize_t n;
  int r, sub_src, sub_dst;

  if (fstatat (srcfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return child_error (cerr, errno, "tmpcopyup `%s/%s`", dest, name);
  switch (st.st_mode & S_IFMT)
    {
    case S_IFREG:
      r = copy_file (srcfd, dstfd, name, &st);
      if (r < 0)
        return child_error (cerr, -r, "tmpcopyup `%s/%s`", dest, name);
      return 0;
    case S_IFLNK:
      n = readlinkat (srcfd, name, link, sizeof link - 1);
      if (n < 0)
        return child_error (cerr, errno, "tmpcopyup `%s/%s`", dest, name);
      link[n] = '\0';
      if (symlinkat (link, dstfd, name) < 0
          || fchownat (dstfd, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) < 0)
        return child_error (cerr, errno, "tmpcopyup `%s/%s`", dest, name);
      return 0;
    case S_IFDIR:
      if (depth >= COPYUP_MAX_DEPTH)
        return child_error (cerr, ELOOP, "tmpcopyup `%s`: deeper than %d levels",
                            dest, COPYUP_MAX_DEPTH);
      if (mkdirat (dstfd, name, st.st_mode & 07777) < 0
          || fchownat (dstfd, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) < 0)
        return child_error (cerr, errno, "tmpcopyup `%s/%s`", dest, name);
      sub_src = openat (srcfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      sub_dst = openat (dstfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      r = (sub_src < 0 || sub_dst < 0)
              ? child_error (cerr, errno, "tmpcopyup `%s/%s`", dest, name)
              : copy_dir (sub_src, sub_dst, depth + 1, dest, cerr);
      if (sub_src >= 0)
        close (sub_src);
      if (sub_dst >= 0)
        close (sub_dst);
      return r;
    default:
      return 0; /* device nodes, fifos and sockets are not copied */
    }
}

static int
copy_dir (int srcfd, int dstfd, int depth, const char *dest,
          struct child_error *cerr)
{
  char buf[2048];
  long n;

  while ((n = syscall (SYS_getdents64, srcfd, buf, sizeof buf)) > 0)
    {
      long off = 0;
      while (off < n)
        {
          struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + off);
          off += d->d_reclen;
          if (strcmp (d->d_name, ".") == 0 || strcmp (d->d_name, "..") == 0)
            continue;
          if (copy_entry (srcfd, dstfd, d->d_name, depth, dest, cerr) < 0)
            return -1;
        }
    }
  if (n < 0)
    return child_error (cerr, errno, "tmpcopyup: read `%s`", dest);
  return 0;
}

int
copyup_tree (int srcfd, int dstfd, const char *dest, struct child_error *cerr)
{
  struct stat st;
  int dst = openat (dstfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int r;

  if (dst < 0)
    return child_error (cerr, errno, "tmpcopyup: open new `%s`", dest);
  /* the new mount's root takes the hidden directory's mode and owner */
  if (fstat (srcfd, &st) == 0)
    {
      if (fchmod (dst, st.st_mode & 07777) < 0
          || fchown (dst, st.st_uid, st.st_gid) < 0)
        {
          close (dst);
          return child_error (cerr, errno, "tmpcopyup: `%s`", dest);
        }
    }
  r = copy_dir (srcfd, dst, 0, dest, cerr);
  close (dst);
  return r;
}
