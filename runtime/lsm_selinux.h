/* SELinux, as far as a runtime needs it: whether it is on, and whether a
 * label is valid.  libselinux is loaded only on hosts where SELinux is on
 * (it pulls in libpcre2): elsewhere labels are ignored, as runc does. */
#ifndef AGENTRT_LSM_SELINUX_H
#define AGENTRT_LSM_SELINUX_H

#include <stdbool.h>

#include "common/error.h"

/* selinuxfs is mounted (the kernel enforces or audits a policy). */
bool selinux_enabled (void);

/* Checks a context with the loaded policy; `field` names it in errors. */
int selinux_check_label (const char *label, const char *field,
                         agentrt_error_t *err);

#endif
