/* The agent's /etc/resolv.conf with the transparent path (docs/egress.md,
 * The runtime's half): the sidecar's DNS stub as the only nameserver, so
 * that what the file says is what happens (the nftables rules send every
 * port-53 query to the stub whatever server it names), and the original's
 * `search`, `domain` and `options` lines, so that names resolve as the
 * image or the engine configured them.  Pure code over untrusted text (the
 * image's file, or the one an engine bound). */
#ifndef AGENTRT_EGRESS_AGENT_RESOLV_H
#define AGENTRT_EGRESS_AGENT_RESOLV_H

#include <stddef.h>

/* Where the stub listens in the agent's namespace. */
#define AGENT_RESOLV_NAMESERVER "127.0.0.1"
/* What is kept of the original: lines of at most this many bytes, this
 * many of them; a line with a byte that is not printable ASCII (or a tab)
 * is dropped, and so is every other keyword (nameserver, sortlist...). */
#define AGENT_RESOLV_LINE_MAX 256
#define AGENT_RESOLV_LINES_MAX 8

/* The new file's text (malloc'd, newline-terminated) from the original's
 * first len bytes (orig may be NULL: no original). */
char *agent_resolv_render (const char *orig, size_t len);

#endif
