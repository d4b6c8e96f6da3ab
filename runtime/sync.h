/* The sync sockets between the runtime and the container's init, and
 * between the runtime and the monitor, while the container is being
 * created: fixed-size messages, optionally carrying fds (SCM_RIGHTS).
 * The init uses it too, so nothing here allocates. */
#ifndef AGENTRT_SYNC_H
#define AGENTRT_SYNC_H

#include <stdint.h>
#include <sys/types.h>

#include "runtime/child_error.h"

enum sync_type
{
  SYNC_MAP_IDS = 1,   /* init -> runtime: write my uid/gid maps */
  SYNC_MAP_IDS_DONE,  /* runtime -> init */
  SYNC_INIT_PID,      /* init -> runtime: value = the init's pid */
  SYNC_CGROUP_DONE,   /* runtime -> init: in the cgroup; fds = hook stdin */
  SYNC_RUN_HOOKS,     /* init -> runtime: run prestart/createRuntime now */
  SYNC_HOOKS_DONE,    /* runtime -> init */
  SYNC_NETNS,         /* init -> runtime: fds = outer netns, listeners */
  SYNC_PTY_MASTER,    /* init -> runtime: fds = terminal master */
  SYNC_SECCOMP_FD,    /* init -> runtime: fds = seccomp notify listener */
  SYNC_SECCOMP_DONE,  /* runtime -> init: listener handed over */
  SYNC_READY,         /* init -> runtime: waiting for `start` */
  SYNC_ERROR,         /* either way: error holds the reason */
  SYNC_MONITOR_NETNS, /* monitor -> runtime: fds = the agent's netns */
  SYNC_MONITOR_CGROUP, /* runtime -> monitor: the init's cgroup exists;
                          value = its pid, fds = its pidfd, flags = 1 when
                          create made the cgroup */
  SYNC_MONITOR_WATCHING, /* monitor -> runtime: the init and its cgroup
                            are watched (the namespace prepared) */
  SYNC_MONITOR_GO,    /* runtime -> monitor: the init is ready; flags say
                         which fds follow */
  SYNC_MONITOR_READY, /* monitor -> runtime, with egress only: the
                         sidecar is armed (monitor_arm_sidecar) */
};

/* The most: the sidecar's sockets (netns.h), the agent's and the outside
 * network namespaces, or with the name files (SYNC_MONITOR_GO). */
#define SYNC_MAX_FDS 12

struct sync_msg
{
  uint32_t type;
  int32_t value;
  uint32_t flags; /* the message's own (SYNC_MONITOR_GO) */
  struct child_error error;
};

/* Sends msg with nfds fds; -errno on failure: a peer that is gone is
 * -EPIPE (seqpacket: no SIGPIPE). */
int sync_send (int sock, const struct sync_msg *msg, const int *fds, int nfds);
/* Receives one message; fds receive up to SYNC_MAX_FDS descriptors (set to -1
 * when absent; received fds are O_CLOEXEC).  Returns -EPIPE on EOF. */
int sync_recv (int sock, struct sync_msg *msg, int *fds, int *nfds);

/* Like sync_recv; *sender receives the sending process's pid as the kernel
 * translates it into the receiver's pid namespace (the socket must have
 * SO_PASSCRED set: see sync_enable_credentials). */
int sync_recv_from (int sock, struct sync_msg *msg, int *fds, int *nfds,
                    pid_t *sender);
int sync_enable_credentials (int sock);

/* A message already queued, without waiting (-EAGAIN when none). */
int sync_recv_nowait (int sock, struct sync_msg *msg);

/* Convenience: a message with only a type and value. */
int sync_send_simple (int sock, enum sync_type type, int32_t value);
/* Receives and checks the type; an SYNC_ERROR is copied to cerr. */
int sync_expect (int sock, enum sync_type type, struct sync_msg *msg, int *fds,
                 int *nfds, struct child_error *cerr);

#endif
