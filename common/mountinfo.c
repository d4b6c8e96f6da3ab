/* Parsing mountinfo lines (see mountinfo.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/mountinfo.h"

int
mountinfo_unescape (char *s)
{
  char *out = s;

  for (char *p = s; *p; p++)
    {
      if (*p == '\\')
        {
          if (p[1] < '0' || p[1] > '3' || p[2] < '0' || p[2] > '7' || p[3] < '0'
              || p[3] > '7')
            return -1;
          *out++ = (char) ((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
          p += 3;
        }
      else
        *out++ = *p;
    }
  *out = '\0';
  return 0;
}

int
mountinfo_split (char *line, struct mountinfo_line *m)
{
  char *f[6], *save = NULL, *tok;
  int n = 0;

  line[strcspn (line, "\n")] = '\0';
  for (tok = strtok_r (line, " ", &save); tok && n < 6;
       tok = strtok_r (NULL, " ", &save))
    f[n++] = tok;
  if (n < 6)
    return -1;
  /* optional fields up to the "-" separator */
  while (tok && strcmp (tok, "-") != 0)
    tok = strtok_r (NULL, " ", &save);
  if (tok == NULL)
    return -1;
  m->fstype = strtok_r (NULL, " ", &save);
  if (m->fstype == NULL || strtok_r (NULL, " ", &save) == NULL)
    return -1;
  m->super_opts = strtok_r (NULL, " ", &save);
  if (m->super_opts == NULL)
    m->super_opts = (char *) "";
  m->id = strtol (f[0], NULL, 10);
  m->parent = strtol (f[1], NULL, 10);
  m->mount_point = f[4];
  return mountinfo_unescape (m->mount_point);
}
