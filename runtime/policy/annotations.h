/* The run.agentrt.* annotations: parsing and validation against the admin
 * policy into a request the hardening step applies, and the list of
 * annotations `features` publishes.  Keys outside run.agentrt. are not
 * ours and are ignored; unknown run.agentrt.* keys (any case) are errors,
 * so that a typo never silently means "no protection".  Pure code. */
#ifndef AGENTRT_POLICY_ANNOTATIONS_H
#define AGENTRT_POLICY_ANNOTATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "oci/config.h"
#include "harden.h"
#include "policy.h"

#define ANNOTATION_PREFIX "run.agentrt."
#define ANNOTATION_CREDENTIALS "run.agentrt.credentials"
#define ANNOTATION_EGRESS "run.agentrt.egress"
#define ANNOTATION_EGRESS_ALLOW "run.agentrt.egress.allow"
#define ANNOTATION_ENV_KEEP "run.agentrt.env.keep"
#define ANNOTATION_ROOTFS "run.agentrt.rootfs"
#define ANNOTATION_TIMEOUT "run.agentrt.timeout"

struct annotation_info
{
  const char *key;
  bool loosens; /* may loosen a protection (potentiallyUnsafeConfigAnnotations) */
  const char *help;
};

/* Every run.agentrt.* annotation, in a stable order. */
const struct annotation_info *annotations_info (size_t *n);

/* What the annotations ask, validated against the policy. */
struct harden_request
{
  enum harden_rootfs rootfs;    /* default readonly */
  enum harden_egress egress;    /* default proxy */
  char *egress_allow;           /* normalised: policy's list + annotation's */
  struct str_list env_keep;     /* names */
  uint64_t lifetime;            /* seconds: policy's, or the annotation's */
  bool has_timeout;             /* lifetime came from run.agentrt.timeout */
  size_t *credentials;          /* indexes into policy->inject */
  size_t n_credentials;
  bool ask_off;                 /* run.agentrt.egress.ask=off */
};

/* Parses the annotations.  Errors name the annotation, and for loosening
 * beyond the policy also the policy field:
 * "annotation run.agentrt.rootfs=writable: not allowed by the policy
 * (rootfs.allowWritable is false)". */
int annotations_parse (const struct kv_list *annotations,
                       const struct agent_policy *policy,
                       struct harden_request *req, agentrt_error_t *err);

void harden_request_release (struct harden_request *req);

#endif
