/* The OCI runtime-spec configuration (config.json) as typed C structs.
 *
 * Everything Linux-relevant in runtime-spec 1.2/1.3 is represented.  Optional
 * scalars carry a has_<field> flag; optional objects are NULL pointers when
 * absent; arrays are (pointer, count) pairs.  All strings are NUL-terminated
 * and contain no embedded NUL (the parser refuses those).  Parsing lives in
 * config_parse*.c, serialisation in config_write.c; nothing here does I/O
 * beyond reading the file it is asked to parse. */
#ifndef AGENTRT_OCI_CONFIG_H
#define AGENTRT_OCI_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

/* items[len] is NULL whenever items is (so args and env can go to execve);
 * an absent list is { NULL, 0 }. */
struct str_list
{
  char **items;
  size_t len;
};

struct kv
{
  char *key;
  char *value;
};

/* Ordered list of key/value pairs (annotations, sysctl, unified).  Keys are
 * unique: the parser keeps the last value of a repeated key, like Go's
 * encoding/json does for maps. */
struct kv_list
{
  struct kv *items;
  size_t len;
};

struct oci_id_mapping
{
  uint32_t container_id;
  uint32_t host_id;
  uint32_t size;
};

struct oci_user
{
  uint32_t uid;
  uint32_t gid;
  bool has_umask;
  uint32_t umask;
  uint32_t *additional_gids;
  size_t n_additional_gids;
};

struct oci_capabilities
{
  struct str_list bounding;
  struct str_list effective;
  struct str_list inheritable;
  struct str_list permitted;
  struct str_list ambient;
};

struct oci_rlimit
{
  char *type; /* "RLIMIT_NOFILE", validated against the known names */
  int resource; /* the matching RLIMIT_* value */
  uint64_t soft;
  uint64_t hard;
};

struct oci_scheduler
{
  char *policy; /* SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_BATCH, SCHED_ISO,
                   SCHED_IDLE, SCHED_DEADLINE */
  int32_t nice;
  int32_t priority;
  struct str_list flags;
  uint64_t runtime;
  uint64_t deadline;
  uint64_t period;
};

struct oci_io_priority
{
  char *klass; /* IOPRIO_CLASS_RT, IOPRIO_CLASS_BE, IOPRIO_CLASS_IDLE */
  int32_t priority;
};

struct oci_cpu_affinity
{
  char *initial; /* cpu list such as "0-3,7", NULL when absent */
  char *final;
};

struct oci_process
{
  bool terminal;
  bool has_console_size;
  uint32_t console_height;
  uint32_t console_width;
  struct oci_user user;
  struct str_list args;
  struct str_list env;
  char *cwd;
  struct oci_capabilities *capabilities;
  struct oci_rlimit *rlimits;
  size_t n_rlimits;
  bool no_new_privileges;
  char *apparmor_profile;
  bool has_oom_score_adj;
  int32_t oom_score_adj;
  char *selinux_label;
  struct oci_scheduler *scheduler;
  struct oci_io_priority *io_priority;
  struct oci_cpu_affinity *exec_cpu_affinity;
};

struct oci_root
{
  char *path; /* as written; may be relative to the bundle */
  bool readonly;
};

struct oci_mount
{
  char *destination; /* absolute (the parser refuses relative ones) */
  char *type;        /* NULL when absent (bind mounts) */
  char *source;      /* NULL when absent */
  struct str_list options;
  struct oci_id_mapping *uid_mappings;
  size_t n_uid_mappings;
  struct oci_id_mapping *gid_mappings;
  size_t n_gid_mappings;
};

struct oci_hook
{
  char *path;
  struct str_list args;
  struct str_list env;
  bool has_timeout;
  int32_t timeout; /* seconds, > 0 */
};

struct oci_hook_list
{
  struct oci_hook *items;
  size_t len;
};

struct oci_hooks
{
  struct oci_hook_list prestart;
  struct oci_hook_list create_runtime;
  struct oci_hook_list create_container;
  struct oci_hook_list start_container;
  struct oci_hook_list poststart;
  struct oci_hook_list poststop;
};

enum oci_namespace_type
{
  OCI_NS_PID,
  OCI_NS_NETWORK,
  OCI_NS_MOUNT,
  OCI_NS_IPC,
  OCI_NS_UTS,
  OCI_NS_USER,
  OCI_NS_CGROUP,
  OCI_NS_TIME,
  OCI_NS_COUNT
};

struct oci_namespace
{
  enum oci_namespace_type type;
  char *path; /* NULL: create a new namespace */
};

struct oci_device
{
  char *path;
  char type; /* 'c', 'b', 'u' or 'p' */
  int64_t major;
  int64_t minor;
  bool has_file_mode;
  uint32_t file_mode;
  bool has_uid;
  uint32_t uid;
  bool has_gid;
  uint32_t gid;
};

struct oci_device_rule
{
  bool allow;
  char type; /* 'a', 'c' or 'b'; 'a' when absent */
  bool has_major;
  int64_t major;
  bool has_minor;
  int64_t minor;
  char *access; /* subset of "rwm"; NULL means all */
};

struct oci_memory
{
  bool has_limit;
  int64_t limit;
  bool has_reservation;
  int64_t reservation;
  bool has_swap;
  int64_t swap;
  bool has_kernel;
  int64_t kernel;
  bool has_kernel_tcp;
  int64_t kernel_tcp;
  bool has_swappiness;
  uint64_t swappiness;
  bool has_disable_oom_killer;
  bool disable_oom_killer;
  bool has_use_hierarchy;
  bool use_hierarchy;
  bool has_check_before_update;
  bool check_before_update;
};

struct oci_cpu
{
  bool has_shares;
  uint64_t shares;
  bool has_quota;
  int64_t quota;
  bool has_burst;
  uint64_t burst;
  bool has_period;
  uint64_t period;
  bool has_realtime_runtime;
  int64_t realtime_runtime;
  bool has_realtime_period;
  uint64_t realtime_period;
  char *cpus;
  char *mems;
  bool has_idle;
  int64_t idle;
};

struct oci_pids
{
  bool has_limit;
  int64_t limit;
};

struct oci_blkio_weight_device
{
  int64_t major;
  int64_t minor;
  bool has_weight;
  uint16_t weight;
  bool has_leaf_weight;
  uint16_t leaf_weight;
};

struct oci_blkio_throttle_device
{
  int64_t major;
  int64_t minor;
  uint64_t rate;
};

struct oci_blkio_throttle_list
{
  struct oci_blkio_throttle_device *items;
  size_t len;
};

struct oci_blkio
{
  bool has_weight;
  uint16_t weight;
  bool has_leaf_weight;
  uint16_t leaf_weight;
  struct oci_blkio_weight_device *weight_devices;
  size_t n_weight_devices;
  struct oci_blkio_throttle_list throttle_read_bps;
  struct oci_blkio_throttle_list throttle_write_bps;
  struct oci_blkio_throttle_list throttle_read_iops;
  struct oci_blkio_throttle_list throttle_write_iops;
};

struct oci_hugepage_limit
{
  char *page_size; /* "2MB", "1GB" */
  uint64_t limit;
};

struct oci_interface_priority
{
  char *name;
  uint32_t priority;
};

struct oci_network
{
  bool has_class_id;
  uint32_t class_id;
  struct oci_interface_priority *priorities;
  size_t n_priorities;
};

/* One entry of linux.resources.rdma (a map keyed by device name). */
struct oci_rdma
{
  char *device;
  bool has_hca_handles;
  uint32_t hca_handles;
  bool has_hca_objects;
  uint32_t hca_objects;
};

struct oci_resources
{
  struct oci_device_rule *devices;
  size_t n_devices;
  struct oci_memory *memory;
  struct oci_cpu *cpu;
  struct oci_pids *pids;
  struct oci_blkio *blkio;
  struct oci_hugepage_limit *hugepage_limits;
  size_t n_hugepage_limits;
  struct kv_list unified;
  struct oci_network *network; /* cgroup v1 net_cls/net_prio */
  struct oci_rdma *rdma;
  size_t n_rdma;
};

enum oci_seccomp_action
{
  OCI_SECCOMP_ACT_KILL, /* SCMP_ACT_KILL, same as KILL_THREAD */
  OCI_SECCOMP_ACT_KILL_PROCESS,
  OCI_SECCOMP_ACT_KILL_THREAD,
  OCI_SECCOMP_ACT_TRAP,
  OCI_SECCOMP_ACT_ERRNO,
  OCI_SECCOMP_ACT_TRACE,
  OCI_SECCOMP_ACT_ALLOW,
  OCI_SECCOMP_ACT_LOG,
  OCI_SECCOMP_ACT_NOTIFY,
};

enum oci_seccomp_op
{
  OCI_SECCOMP_OP_NE,
  OCI_SECCOMP_OP_LT,
  OCI_SECCOMP_OP_LE,
  OCI_SECCOMP_OP_EQ,
  OCI_SECCOMP_OP_GE,
  OCI_SECCOMP_OP_GT,
  OCI_SECCOMP_OP_MASKED_EQ,
};

struct oci_seccomp_arg
{
  uint32_t index; /* 0..5 */
  uint64_t value;
  uint64_t value_two;
  enum oci_seccomp_op op;
};

struct oci_seccomp_rule
{
  struct str_list names;
  enum oci_seccomp_action action;
  bool has_errno_ret;
  uint32_t errno_ret;
  struct oci_seccomp_arg *args;
  size_t n_args;
};

struct oci_seccomp
{
  enum oci_seccomp_action default_action;
  bool has_default_errno_ret;
  uint32_t default_errno_ret;
  struct str_list architectures; /* "SCMP_ARCH_X86_64", ... */
  struct str_list flags;         /* "SECCOMP_FILTER_FLAG_LOG", ... */
  char *listener_path;
  char *listener_metadata;
  struct oci_seccomp_rule *syscalls;
  size_t n_syscalls;
};

struct oci_personality
{
  char *domain; /* "LINUX" or "LINUX32" */
  struct str_list flags;
};

struct oci_time_offset
{
  bool present;
  int64_t secs;
  uint32_t nanosecs;
};

/* One entry of linux.netDevices (runtime-spec 1.3), keyed by host name. */
struct oci_net_device
{
  char *host_name;
  char *name; /* name inside the container; NULL keeps host_name */
};

struct oci_intel_rdt
{
  char *clos_id;
  char *l3_cache_schema;
  char *mem_bw_schema;
  struct str_list schemata; /* 1.3 */
  bool enable_cmt;          /* 1.2 */
  bool enable_mbm;          /* 1.2 */
  bool enable_monitoring;   /* 1.3 */
};

/* linux.memoryPolicy (runtime-spec 1.3). */
struct oci_memory_policy
{
  char *mode; /* MPOL_DEFAULT, MPOL_BIND, ... (validated) */
  char *nodes;
  struct str_list flags; /* MPOL_F_STATIC_NODES, ... (validated) */
};

struct oci_linux
{
  struct oci_namespace *namespaces;
  size_t n_namespaces;
  struct oci_id_mapping *uid_mappings;
  size_t n_uid_mappings;
  struct oci_id_mapping *gid_mappings;
  size_t n_gid_mappings;
  struct oci_device *devices;
  size_t n_devices;
  char *cgroups_path;
  struct oci_resources *resources;
  struct kv_list sysctl;
  struct oci_seccomp *seccomp;
  char *rootfs_propagation; /* shared, slave, private, unbindable, rshared... */
  struct str_list masked_paths;
  struct str_list readonly_paths;
  char *mount_label;
  struct oci_personality *personality;
  struct oci_time_offset time_offset_boottime;
  struct oci_time_offset time_offset_monotonic;
  struct oci_net_device *net_devices;
  size_t n_net_devices;
  struct oci_intel_rdt *intel_rdt;
  struct oci_memory_policy *memory_policy;
};

struct oci_config
{
  char *oci_version;
  struct oci_root root;
  struct oci_process *process; /* NULL when absent */
  char *hostname;
  char *domainname;
  struct oci_mount *mounts;
  size_t n_mounts;
  struct oci_hooks hooks;
  struct kv_list annotations;
  struct oci_linux *linux_cfg; /* NULL when absent ("linux" is a GNU C macro) */
};

/* Parses config.json text of `len` bytes.  `origin` names the document in
 * error messages ("config.json").  Errors name the JSON path:
 * "config.json: process.rlimits[2].hard: expected an unsigned integer". */
struct oci_config *oci_config_parse (const char *json, size_t len,
                                     const char *origin, agentrt_error_t *err);

/* Reads and parses a file (refusing anything but a regular file, and files
 * larger than OCI_CONFIG_MAX_SIZE). */
#define OCI_CONFIG_MAX_SIZE (16u * 1024 * 1024)
struct oci_config *oci_config_parse_file (const char *path, agentrt_error_t *err);

/* Same for a file relative to a directory fd (the bundle). */
struct oci_config *oci_config_parse_file_at (int dirfd, const char *name,
                                             agentrt_error_t *err);

/* Serialises back to JSON (runtime-spec field names); the result parses to an
 * equal struct.  Returns a malloc'd NUL-terminated string. */
char *oci_config_to_json (const struct oci_config *config, bool pretty,
                          agentrt_error_t *err);
/* Same with an indent string of one's choice (`agentrt spec` uses "\t" like
 * runc); NULL is compact. */
char *oci_config_to_json_indent (const struct oci_config *config,
                                 const char *indent, agentrt_error_t *err);

/* Parses a LinuxResources object on its own (`agentrt update --resources`). */
struct oci_resources *oci_resources_parse (const char *json, size_t len,
                                           const char *origin,
                                           agentrt_error_t *err);

/* Parses a Process object on its own (`agentrt exec --process`). */
struct oci_process *oci_process_parse (const char *json, size_t len,
                                       const char *origin, agentrt_error_t *err);

/* Parses a LinuxSeccomp object on its own (the profiles under
 * seccomp-profiles/). */
struct oci_seccomp *oci_seccomp_parse (const char *json, size_t len,
                                       const char *origin, agentrt_error_t *err);

void oci_config_free (struct oci_config *config);
void oci_process_free (struct oci_process *process);
void oci_resources_free (struct oci_resources *resources);
void oci_seccomp_free (struct oci_seccomp *seccomp);
void str_list_free (struct str_list *list);
void kv_list_free (struct kv_list *list);

/* Deep copies, used by the hardening step to build its result. */
struct oci_process *oci_process_dup (const struct oci_process *process);
struct oci_seccomp *oci_seccomp_dup (const struct oci_seccomp *seccomp);

/* Lookup helpers. */
const char *kv_list_get (const struct kv_list *list, const char *key);
/* Sets key to value (replacing an existing entry); copies both. */
void kv_list_set (struct kv_list *list, const char *key, const char *value);
void str_list_append (struct str_list *list, const char *value);
bool str_list_contains (const struct str_list *list, const char *value);
/* The items joined with sep (malloc'd; "" for an empty list). */
char *str_list_join (const struct str_list *list, const char *sep);
const struct oci_namespace *oci_config_namespace (const struct oci_config *config,
                                                  enum oci_namespace_type type);

/* "pid", "network", ... and the reverse.  Returns -1 for unknown names. */
const char *oci_namespace_type_name (enum oci_namespace_type type);
int oci_namespace_type_from_name (const char *name);

/* "SCMP_ACT_ERRNO", "SCMP_CMP_EQ" and the reverse (-1 for unknown names). */
const char *oci_seccomp_action_name (enum oci_seccomp_action action);
int oci_seccomp_action_from_name (const char *name);
const char *oci_seccomp_op_name (enum oci_seccomp_op op);
int oci_seccomp_op_from_name (const char *name);

/* "RLIMIT_NOFILE" -> RLIMIT_NOFILE, -1 for unknown names. */
int oci_rlimit_from_name (const char *name);

static inline void
cleanup_oci_config_fn (struct oci_config **c)
{
  oci_config_free (*c);
}
#define cleanup_oci_config __attribute__ ((cleanup (cleanup_oci_config_fn)))

#endif
