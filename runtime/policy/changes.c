/* The list of changes made by the hardening step and its text and JSON
 * renderings (see changes.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "changes.h"

static const char *const kind_names[] = {
  [CHANGE_ENV_REMOVED] = "env-removed",
  [CHANGE_ENV_KEPT] = "env-kept",
  [CHANGE_ENV_SET] = "env-set",
  [CHANGE_MOUNT_DROPPED] = "mount-dropped",
  [CHANGE_MOUNT_SOURCE] = "mount-source",
  [CHANGE_PATH_MASKED] = "path-masked",
  [CHANGE_TMPFS] = "tmpfs",
  [CHANGE_ROOTFS] = "rootfs",
  [CHANGE_CAPABILITY] = "capability",
  [CHANGE_NO_NEW_PRIVS] = "no-new-privileges",
  [CHANGE_LIMIT] = "limit",
  [CHANGE_LIFETIME] = "lifetime",
  [CHANGE_NAMESPACE] = "namespace",
  [CHANGE_EGRESS] = "egress",
  [CHANGE_SECCOMP] = "seccomp",
  [CHANGE_KERNEL_PATH] = "kernel-path",
  [CHANGE_DEVICE] = "device",
  [CHANGE_MOUNT_OPTIONS] = "mount-options",
  [CHANGE_PATH_READONLY] = "path-readonly",
  [CHANGE_POLICY] = "policy",
};

const char *
change_kind_name (enum change_kind kind)
{
  if ((size_t) kind >= sizeof (kind_names) / sizeof (kind_names[0]))
    return "unknown";
  return kind_names[kind];
}

void
change_add (struct change_list *list, enum change_kind kind,
            const char *what, const char *why)
{
  size_t what_len = strlen (what), why_len = strlen (why);
  struct change *c;

  /* Few blocks, grown geometrically: create forks the monitor and the
   * init with this list alive, and every heap page it spreads over is
   * one more copy-on-write fault when create frees it (docs/benchmarks.md). */
  if (list->len == list->cap)
    {
      list->cap = list->cap ? 2 * list->cap : 16;
      list->items = xreallocarray (list->items, list->cap, sizeof (list->items[0]));
    }
  c = &list->items[list->len++];
  c->kind = kind;
  c->what = xmalloc (what_len + why_len + 2);
  memcpy (c->what, what, what_len + 1);
  c->why = c->what + what_len + 1;
  memcpy (c->why, why, why_len + 1);
}

void
change_addf (struct change_list *list, enum change_kind kind,
             const char *why, const char *what_fmt, ...)
{
  char *what = NULL;
  va_list ap;

  va_start (ap, what_fmt);
  if (vasprintf (&what, what_fmt, ap) < 0)
    what = NULL;
  va_end (ap);
  if (what == NULL)
    abort (); /* out of memory, as xalloc does */
  change_add (list, kind, what, why);
  free (what);
}

void
change_list_release (struct change_list *list)
{
  for (size_t i = 0; i < list->len; i++)
    free (list->items[i].what);
  free (list->items);
  list->items = NULL;
  list->len = list->cap = 0;
}

/* Writes s with control bytes as \xNN, so that a hostile path cannot
 * start a line of its own. */
static void
put_escaped (FILE *f, const char *s)
{
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    if (*p < 0x20 || *p == 0x7f || *p == '\\')
      fprintf (f, "\\x%02x", *p);
    else
      fputc (*p, f);
}

char *
change_list_to_text (const struct change_list *list)
{
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&buf, &size);

  if (f == NULL)
    abort ();
  for (size_t i = 0; i < list->len; i++)
    {
      fprintf (f, "%s: ", change_kind_name (list->items[i].kind));
      put_escaped (f, list->items[i].what);
      fputs (" (", f);
      put_escaped (f, list->items[i].why);
      fputs (")\n", f);
    }
  if (fclose (f) != 0 || buf == NULL)
    abort ();
  return buf;
}

void
change_list_write_json (const struct change_list *list, struct json_writer *w)
{
  json_begin_array (w);
  for (size_t i = 0; i < list->len; i++)
    {
      json_begin_object (w);
      json_kv_string (w, "kind", change_kind_name (list->items[i].kind));
      json_kv_string (w, "what", list->items[i].what);
      json_kv_string (w, "why", list->items[i].why);
      json_end_object (w);
    }
  json_end_array (w);
}
