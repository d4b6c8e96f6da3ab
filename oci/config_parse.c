/* config.json: reading the file safely (regular files only, bounded size,
 * never blocking on a FIFO) and the top level of the document (ociVersion,
 * root, hostname, annotations), handing each section to its parser. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/io.h"
#include "common/xalloc.h"
#include "config_parse.h"

static int
parse_root (const struct json_ctx *c, const struct json_node *obj,
            const struct json_path *p, struct oci_root *root)
{
  if (json_member_string (c, obj, p, "path", JSON_REQUIRED, &root->path) < 0
      || json_member_bool (c, obj, p, "readonly", JSON_OPTIONAL, &root->readonly,
                           NULL) < 0)
    return -1;
  return 0;
}

static int
parse_config (const struct json_ctx *c, const struct json_node *obj,
              struct oci_config *config)
{
  const struct json_path *p = NULL;
  const struct json_node *m;

  if (json_member_string (c, obj, p, "ociVersion", JSON_REQUIRED,
                          &config->oci_version) < 0)
    return -1;
  if (json_member_of_type (c, obj, p, "root", JSON_REQUIRED, JSON_OBJECT, &m) < 0
      || parse_root (c, m, JSON_PATH_KEY (p, "root"), &config->root) < 0)
    return -1;
  if (MEMBER_OBJECT_FAILS (c, obj, p, "process", m,
                           parse_process (c, m, JSON_PATH_KEY (p, "process"),
                                          &config->process))
      || json_member_string (c, obj, p, "hostname", JSON_OPTIONAL,
                             &config->hostname) < 0
      || json_member_string (c, obj, p, "domainname", JSON_OPTIONAL,
                             &config->domainname) < 0
      || parse_mounts (c, obj, config) < 0
      || MEMBER_OBJECT_FAILS (c, obj, p, "hooks", m,
                              parse_hooks (c, m, JSON_PATH_KEY (p, "hooks"),
                                           &config->hooks))
      || member_kv_list (c, obj, p, "annotations", &config->annotations) < 0
      || MEMBER_OBJECT_FAILS (c, obj, p, "linux", m,
                              parse_linux (c, m, JSON_PATH_KEY (p, "linux"),
                                           &config->linux_cfg)))
    return -1;
  return 0;
}

struct oci_config *
oci_config_parse (const char *json, size_t len, const char *origin,
                  agentrt_error_t *err)
{
  const struct json_ctx c = { origin, err };
  cleanup_json_doc struct json_doc *doc = parse_document (json, len, origin, err);
  struct oci_config *config;

  if (doc == NULL)
    return NULL;
  config = xzalloc (sizeof (*config));
  if (parse_config (&c, json_doc_root (doc), config) < 0)
    {
      oci_config_free (config);
      return NULL;
    }
  return config;
}

/* Reads a whole regular file of at most OCI_CONFIG_MAX_SIZE bytes.  The open
 * does not block on a FIFO (O_NONBLOCK) and the type is checked on the fd. */
static char *
read_config_file (int dirfd, const char *name, size_t *len, agentrt_error_t *err)
{
  cleanup_close int fd = -1;
  char *buf;
  struct stat st;

  fd = openat (dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return agentrt_error (err, errno, "open `%s`", name), NULL;
  if (fstat (fd, &st) < 0)
    return agentrt_error (err, errno, "stat `%s`", name), NULL;
  if (!S_ISREG (st.st_mode))
    return agentrt_error (err, 0, "`%s`: not a regular file", name), NULL;
  if (io_read_all (fd, OCI_CONFIG_MAX_SIZE, &buf, len) == 0)
    return buf;
  if (errno == EFBIG)
    return agentrt_error (err, EFBIG, "`%s`: larger than %u bytes", name,
                          OCI_CONFIG_MAX_SIZE), NULL;
  return agentrt_error (err, errno, "read `%s`", name), NULL;
}

struct oci_config *
oci_config_parse_file_at (int dirfd, const char *name, agentrt_error_t *err)
{
  cleanup_free char *json = NULL;
  size_t len;

  json = read_config_file (dirfd, name, &len, err);
  if (json == NULL)
    return NULL;
  return oci_config_parse (json, len, name, err);
}

struct oci_config *
oci_config_parse_file (const char *path, agentrt_error_t *err)
{
  return oci_config_parse_file_at (AT_FDCWD, path, err);
}
