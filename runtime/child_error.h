/* Errors in the container's init between clone and exec, where nothing may
 * allocate: a fixed-size record, formatted into a buffer and sent to the
 * runtime over the sync socket as is. */
#ifndef AGENTRT_CHILD_ERROR_H
#define AGENTRT_CHILD_ERROR_H

#define CHILD_ERROR_MSG_MAX 480

struct child_error
{
  int status;
  char msg[CHILD_ERROR_MSG_MAX];
};

/* Formats "<fmt>: strerror(status)" into cerr and returns -1. */
int child_error (struct child_error *cerr, int status, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

#endif
