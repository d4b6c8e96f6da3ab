/* The state directory: one directory per container under --root, holding
 * state.json (agentrt's record), config.json (the hardened config) and
 * exec.fifo (the create/start rendezvous).  Every command on an id holds an
 * exclusive flock on the directory, so commands on one id are serialized;
 * every file is replaced atomically (write a temporary, then rename). */
#ifndef AGENTRT_STATE_STORE_H
#define AGENTRT_STATE_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "oci/state.h"

#define STATE_FILE "state.json"
#define CONFIG_FILE "config.json"
#define EXEC_FIFO "exec.fifo"

struct state_dir
{
  int dirfd; /* locked */
  char *path;
  char *id;
};

/* Container ids: 1..1024 characters of [A-Za-z0-9_+.-], not starting with
 * a dot (names such as .seccomp-cache under --root are agentrt's). */
bool state_id_valid (const char *id);

/* Creates the state root and its missing parents (mode 0700), like runc:
 * engines pass roots such as EXEC_ROOT/runtime-runc/moby before any
 * container made them. */
int state_root_create (const char *root, agentrt_error_t *err);

/* Creates root/<id> atomically (appears already locked); error if it exists. */
int state_dir_create (const char *root, const char *id, struct state_dir *out,
                      agentrt_error_t *err);

/* Opens and locks root/<id>.  A missing container fails with status ENOENT
 * and the message "container `ID` does not exist". */
int state_dir_open (const char *root, const char *id, struct state_dir *out,
                    agentrt_error_t *err);

void state_dir_close (struct state_dir *dir);

int state_dir_write (struct state_dir *dir, const char *name, const char *data,
                     size_t len, agentrt_error_t *err);
int state_dir_save (struct state_dir *dir, const struct container_state *state,
                    agentrt_error_t *err);
/* NULL with status ENOENT when the container never got a state.json (a create
 * that died early); other failures mean a corrupt file. */
struct container_state *state_dir_load (struct state_dir *dir,
                                        agentrt_error_t *err);
/* Reads a whole file of the directory (NUL-terminated; *len excludes it). */
char *state_dir_read (struct state_dir *dir, const char *name, size_t *len,
                      agentrt_error_t *err);

/* Removes the directory and its files; the lock is released. */
int state_dir_remove (struct state_dir *dir, agentrt_error_t *err);

/* Lists the ids under root (sorted).  A missing root is an empty list. */
int state_list_ids (const char *root, char ***ids, size_t *n,
                    agentrt_error_t *err);

#endif
