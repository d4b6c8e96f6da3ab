/* Parsing an overlayfs mount's layers (see overlay_layers.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/mountinfo.h"
#include "common/xalloc.h"
#include "runtime/overlay_layers.h"

static int
add_layer (struct overlay_layers *out, const char *dir, const char *option,
           agentrt_error_t *err)
{
  if (dir[0] != '/')
    return agentrt_error (err, 0, "overlay option %s: the layer `%s` is "
                          "relative (to the mounting engine's working "
                          "directory)", option, dir);
  str_list_append (&out->dirs, dir);
  return 0;
}

/* lowerdir's list: `:` separates layers, `\:` is a colon of a name, `::`
 * starts data-only layers. */
static int
add_lowerdirs (struct overlay_layers *out, char *list, agentrt_error_t *err)
{
  char *start = list, *in = list, *o = list;

  for (;; in++)
    {
      if (in[0] == '\\' && in[1] != '\0')
        {
          *o++ = *++in;
          continue;
        }
      if (in[0] != ':' && in[0] != '\0')
        {
          *o++ = *in;
          continue;
        }
      bool last = in[0] == '\0';
      if (!last && in[1] == ':')
        return agentrt_error (err, 0, "overlay option lowerdir: data-only "
                              "layers (`::`)");
      *o = '\0'; /* o may be in: `last` was read before */
      if (o == start)
        return agentrt_error (err, 0, "overlay option lowerdir: an empty "
                              "layer");
      if (add_layer (out, start, "lowerdir", err) < 0)
        return -1;
      if (last)
        return 0;
      start = o = in + 1;
    }
}

static int
take_option (struct overlay_layers *out, char *opt, char **upper,
             agentrt_error_t *err)
{
  char *eq = strchr (opt, '=');
  char *value = eq ? eq + 1 : NULL;

  if (eq)
    *eq = '\0';
  if (strcmp (opt, "userxattr") == 0)
    out->userxattr = true;
  if (value == NULL)
    return 0;
  if (mountinfo_unescape (value) < 0)
    return agentrt_error (err, 0, "overlay option %s: a malformed "
                          "escape", opt);
  if (strcmp (opt, "upperdir") == 0)
    *upper = value;
  else if (strcmp (opt, "metacopy") == 0 || strcmp (opt, "redirect_dir") == 0)
    {
      char **keep = opt[0] == 'm' ? &out->metacopy : &out->redirect_dir;
      free (*keep);
      *keep = xstrdup (value);
    }
  else if (strcmp (opt, "lowerdir") == 0)
    return add_lowerdirs (out, value, err);
  else if (strcmp (opt, "lowerdir+") == 0)
    return add_layer (out, value, "lowerdir+", err);
  else if (strcmp (opt, "datadir+") == 0)
    return agentrt_error (err, 0, "overlay option datadir+: data-only "
                          "layers");
  return 0;
}

int
overlay_layers_parse (const char *super_opts, struct overlay_layers *out,
                      agentrt_error_t *err)
{
  cleanup_free char *copy = xstrdup (super_opts);
  char *save = NULL, *upper = NULL;

  memset (out, 0, sizeof *out);
  for (char *opt = strtok_r (copy, ",", &save); opt;
       opt = strtok_r (NULL, ",", &save))
    if (take_option (out, opt, &upper, err) < 0)
      {
        overlay_layers_release (out);
        return -1;
      }
  if (out->dirs.len == 0)
    {
      overlay_layers_release (out);
      return agentrt_error (err, 0, "overlay options: no lowerdir");
    }
  if (upper && add_layer (out, upper, "upperdir", err) < 0)
    {
      overlay_layers_release (out);
      return -1;
    }
  if (upper)
    {
      /* the topmost first: the upper directory, appended last, goes up */
      char *top = out->dirs.items[out->dirs.len - 1];
      memmove (out->dirs.items + 1, out->dirs.items,
               (out->dirs.len - 1) * sizeof *out->dirs.items);
      out->dirs.items[0] = top;
    }
  return 0;
}

void
overlay_layers_release (struct overlay_layers *l)
{
  str_list_free (&l->dirs);
  free (l->metacopy);
  free (l->redirect_dir);
  l->metacopy = l->redirect_dir = NULL;
  l->userxattr = false;
}
