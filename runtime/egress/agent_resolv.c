/* The agent's resolv.conf (see agent_resolv.h). */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "agent_resolv.h"
#include "common/xalloc.h"

static const char header[]
    = "# agentrt: every DNS query goes to the egress sidecar's stub, which "
      "answers\n# the allowlisted names only (docs/egress.md, The DNS stub)\n"
      "nameserver " AGENT_RESOLV_NAMESERVER "\n";

/* Whether the line (without its newline) is one to keep: a kept keyword
 * followed by a blank, printable ASCII throughout. */
static bool
keep (const char *line, size_t len)
{
  static const char *const keywords[] = { "search", "domain", "options", NULL };
  size_t i;

  if (len > AGENT_RESOLV_LINE_MAX)
    return false;
  for (i = 0; i < len; i++)
    {
      unsigned char c = (unsigned char) line[i];
      if ((c < 0x20 || c > 0x7e) && c != '\t')
        return false;
    }
  for (i = 0; keywords[i]; i++)
    {
      size_t k = strlen (keywords[i]);
      if (len > k && memcmp (line, keywords[i], k) == 0
          && (line[k] == ' ' || line[k] == '\t'))
        return true;
    }
  return false;
}

char *
agent_resolv_render (const char *orig, size_t len)
{
  size_t cap = sizeof header + AGENT_RESOLV_LINES_MAX * (AGENT_RESOLV_LINE_MAX + 1);
  char *out = xmalloc (cap), *w = out;
  size_t kept = 0, pos = 0;

  memcpy (w, header, sizeof header - 1);
  w += sizeof header - 1;
  while (orig && pos < len && kept < AGENT_RESOLV_LINES_MAX)
    {
      const char *nl = memchr (orig + pos, '\n', len - pos);
      size_t n = nl ? (size_t) (nl - (orig + pos)) : len - pos;

      /* a CR before the newline is no part of the line */
      if (n > 0 && orig[pos + n - 1] == '\r')
        n--;
      if (keep (orig + pos, n))
        {
          memcpy (w, orig + pos, n);
          w += n;
          *w++ = '\n';
          kept++;
        }
      pos += (nl ? (size_t) (nl - (orig + pos)) + 1 : len - pos);
    }
  *w = '\0';
  return out;
}
