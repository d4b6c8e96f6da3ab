/* Cache keys of compiled seccomp programs (see seccomp_key.h). */
#include "config.h"

#include <elf.h>
#include <link.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/seccomp/seccomp_key.h"

/* Bump when the key's layout or the entry format changes. */
#define KEY_FORMAT 2u

struct keybuf
{
  char *data;
  size_t len, cap;
};

static void
put (struct keybuf *b, const void *p, size_t n)
{
  if (b->len + n > b->cap)
    {
      /* doubled, or just enough for a large piece: create keeps no heap
       * pages it does not use (docs/benchmarks.md) */
      b->cap = b->cap * 2 > b->len + n ? b->cap * 2 : b->len + n;
      b->data = xrealloc (b->data, b->cap);
    }
  memcpy (b->data + b->len, p, n);
  b->len += n;
}

static void
put_u32 (struct keybuf *b, uint32_t v)
{
  put (b, &v, sizeof (v));
}

static void
put_u64 (struct keybuf *b, uint64_t v)
{
  put (b, &v, sizeof (v));
}

/* A string is its length and its bytes: no two lists of strings have the
 * same bytes. */
static void
put_str (struct keybuf *b, const char *s)
{
  size_t n = strlen (s);
  put_u32 (b, (uint32_t) n);
  put (b, s, n);
}

static void
put_list (struct keybuf *b, const struct str_list *l)
{
  size_t i;
  put_u32 (b, (uint32_t) l->len);
  for (i = 0; i < l->len; i++)
    put_str (b, l->items[i]);
}

struct build_id
{
  char hex[2 * 64 + 1];
};

static int
find_build_id (struct dl_phdr_info *info, size_t size, void *data)
{
  struct build_id *id = data;
  int i;

  (void) size;
  /* the first object is the program itself */
  for (i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      const char *p, *end;

      if (ph->p_type != PT_NOTE)
        continue;
      p = (const char *) (info->dlpi_addr + ph->p_vaddr);
      end = p + ph->p_memsz;
      while (p + sizeof (ElfW (Nhdr)) <= end)
        {
          const ElfW (Nhdr) *n = (const ElfW (Nhdr) *) p;
          const unsigned char *desc
              = (const unsigned char *) (p + sizeof (*n)
                                         + ((n->n_namesz + 3) & ~3u));
          size_t k;

          if ((const char *) desc + n->n_descsz > end)
            break;
          if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4
              && memcmp (p + sizeof (*n), "GNU", 4) == 0 && n->n_descsz <= 64)
            {
              for (k = 0; k < n->n_descsz; k++)
                snprintf (id->hex + 2 * k, 3, "%02x", desc[k]);
              return 1;
            }
          p = (const char *) desc + ((n->n_descsz + 3) & ~3u);
        }
    }
  return 1;
}

/* What every key starts with. */
static void
put_environment (struct keybuf *b, const char *kind)
{
  const struct scmp_version *v = seccomp_version ();
  static struct build_id id; /* the running program's: found once */
  cleanup_free char *line = NULL;
  struct utsname uts;

  if (id.hex[0] == '\0')
    {
      dl_iterate_phdr (find_build_id, &id);
      if (id.hex[0] == '\0')
        strcpy (id.hex, "none");
    }
  if (uname (&uts) < 0)
    {
      strcpy (uts.release, "unknown");
      strcpy (uts.version, "unknown");
    }
  line = xasprintf ("agentrt-seccomp-cache %u\nagentrt %s %s %s\n"
                    "libseccomp %u.%u.%u\narch %08x\nkernel %s %s\n%s\n",
                    KEY_FORMAT, PACKAGE_VERSION, GIT_COMMIT, id.hex, v->major,
                    v->minor, v->micro, seccomp_arch_native (), uts.release,
                    uts.version, kind);
  put (b, line, strlen (line));
}

char *
seccomp_key_file_head (size_t *head_len)
{
  struct keybuf b = { 0 };

  put_environment (&b, "file");
  *head_len = b.len;
  return b.data;
}

static void
put_rule (struct keybuf *b, const struct oci_seccomp_rule *r)
{
  size_t i;

  put_list (b, &r->names);
  put_u32 (b, (uint32_t) r->action);
  put_u32 (b, r->has_errno_ret);
  put_u32 (b, r->has_errno_ret ? r->errno_ret : 0);
  put_u32 (b, (uint32_t) r->n_args);
  for (i = 0; i < r->n_args; i++)
    {
      put_u32 (b, r->args[i].index);
      put_u32 (b, (uint32_t) r->args[i].op);
      put_u64 (b, r->args[i].value);
      put_u64 (b, r->args[i].value_two);
    }
}

char *
seccomp_key_oci (const struct oci_seccomp *s, size_t *key_len)
{
  struct keybuf b = { 0 };
  size_t i;

  put_environment (&b, "oci");
  put_u32 (&b, (uint32_t) s->default_action);
  put_u32 (&b, s->has_default_errno_ret);
  put_u32 (&b, s->has_default_errno_ret ? s->default_errno_ret : 0);
  put_list (&b, &s->architectures);
  put_list (&b, &s->flags);
  put_u32 (&b, s->listener_path != NULL);
  put_u32 (&b, (uint32_t) s->n_syscalls);
  for (i = 0; i < s->n_syscalls; i++)
    put_rule (&b, &s->syscalls[i]);
  *key_len = b.len;
  return b.data;
}
