/* The approver's socket (the policy's egress.ask, issue 18), connected by
 * the container's monitor just before it starts the sidecar, which gets
 * the connection as --approver-fd: the sidecar itself opens no path. */
#ifndef AGENTRT_APPROVER_CONNECT_H
#define AGENTRT_APPROVER_CONNECT_H

/* A connected unix stream socket (close-on-exec), or -1 with why
 * (size bytes) saying what failed: the sidecar then starts without
 * asking, and destinations outside the allowlist are denied. */
int approver_connect (const char *path, char *why, unsigned size);

#endif
