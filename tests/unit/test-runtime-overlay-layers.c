/* An overlayfs mount's layers from its mountinfo super options
 * (runtime/overlay_layers.c): the order (upper first), both ways of
 * naming lower layers, mountinfo's and overlayfs's escapes, and what is
 * refused: relative layers, data-only layers, empty and malformed lists. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "runtime/overlay_layers.h"
#include "tests/unit/unit.h"

/* The layers joined by `|`, or "error: MESSAGE". */
static const char *
layers (const char *opts, bool *userxattr)
{
  static char out[1024];
  cleanup_error agentrt_error_t err = NULL;
  struct overlay_layers l;

  if (overlay_layers_parse (opts, &l, &err) < 0)
    {
      snprintf (out, sizeof out, "error: %s", err->msg);
      return out;
    }
  out[0] = '\0';
  for (size_t i = 0; i < l.dirs.len; i++)
    {
      strncat (out, i ? "|" : "", sizeof out - strlen (out) - 1);
      strncat (out, l.dirs.items[i], sizeof out - strlen (out) - 1);
    }
  if (userxattr)
    *userxattr = l.userxattr;
  if (l.metacopy || l.redirect_dir)
    snprintf (out + strlen (out), sizeof out - strlen (out), " metacopy=%s redirect_dir=%s",
              l.metacopy ? l.metacopy : "-", l.redirect_dir ? l.redirect_dir : "-");
  overlay_layers_release (&l);
  return out;
}

static void
test_order (void)
{
  bool ux = true;

  CHECK_STR_EQ (layers ("rw,relatime,lowerdir=/s/l/A:/s/l/B,upperdir=/s/c/diff,"
                        "workdir=/s/c/work,redirect_dir=on", &ux),
                "/s/c/diff|/s/l/A|/s/l/B metacopy=- redirect_dir=on");
  CHECK (!ux);
  CHECK_STR_EQ (layers ("ro,lowerdir=/only", NULL), "/only");
  /* how the layers were written goes with them */
  CHECK_STR_EQ (layers ("rw,lowerdir=/l,upperdir=/u,workdir=/w,redirect_dir=on,"
                        "metacopy=on", NULL),
                "/u|/l metacopy=on redirect_dir=on");
  CHECK_STR_EQ (layers ("rw,lowerdir+=/l1,lowerdir+=/l2,upperdir=/u,workdir=/w,"
                        "userxattr", &ux),
                "/u|/l1|/l2");
  CHECK (ux);
}

static void
test_escapes (void)
{
  /* mountinfo shows a backslash as \134, a comma as \054, a space as
   * \040; overlayfs's `\:` is a colon inside a name */
  CHECK_STR_EQ (layers ("lowerdir=/a\\134:b:/c\\054d\\040e,upperdir=/u\\040p", NULL),
                "/u p|/a:b|/c,d e");
}

static void
test_refused (void)
{
  static const struct
  {
    const char *opts, *error;
  } cases[] = {
    { "lowerdir=l/ABC:l/DEF,upperdir=/u", "error: overlay option lowerdir: the "
      "layer `l/ABC` is relative (to the mounting engine's working directory)" },
    { "lowerdir=/a,upperdir=diff", "error: overlay option upperdir: the layer "
      "`diff` is relative (to the mounting engine's working directory)" },
    { "lowerdir+=rel", "error: overlay option lowerdir+: the layer `rel` is "
      "relative (to the mounting engine's working directory)" },
    { "lowerdir=/a::/data", "error: overlay option lowerdir: data-only layers (`::`)" },
    { "lowerdir+=/a,datadir+=/d", "error: overlay option datadir+: data-only layers" },
    { "rw,upperdir=/u,workdir=/w", "error: overlay options: no lowerdir" },
    { "", "error: overlay options: no lowerdir" },
    { "lowerdir=:/a", "error: overlay option lowerdir: an empty layer" },
    { "lowerdir=/a:", "error: overlay option lowerdir: an empty layer" },
    { "lowerdir=", "error: overlay option lowerdir: an empty layer" },
    { "lowerdir=/a\\9", "error: overlay option lowerdir: a malformed escape" },
    { "lowerdir=/a\\", "error: overlay option lowerdir: a malformed escape" },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    CHECK_STR_EQ (layers (cases[i].opts, NULL), cases[i].error);
}

int
main (void)
{
  RUN_TEST (test_order);
  RUN_TEST (test_escapes);
  RUN_TEST (test_refused);
  return UNIT_EXIT ();
}
