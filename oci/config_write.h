/* Internal to config_write*.c: the writer state and the helpers shared by
 * the top-level and the linux-section serialisers. */
#ifndef AGENTRT_OCI_CONFIG_WRITE_H
#define AGENTRT_OCI_CONFIG_WRITE_H

#include "config.h"
#include "json_writer.h"

struct config_writer
{
  struct json_writer *w;
  const char *missing; /* the first required value found missing/invalid */
};

/* Records a problem; the document is refused at the end. */
void write_missing (struct config_writer *cw, const char *what);
void write_required_string (struct config_writer *cw, const char *key,
                            const char *s);
/* These write nothing for NULL / empty values. */
void write_string (struct config_writer *cw, const char *key, const char *s);
void write_str_list (struct config_writer *cw, const char *key,
                     const struct str_list *list);
void write_kv_list (struct config_writer *cw, const char *key,
                    const struct kv_list *list);
void write_id_mappings (struct config_writer *cw, const char *key,
                        const struct oci_id_mapping *m, size_t n);

void write_process (struct config_writer *cw, const struct oci_process *p);
void write_linux (struct config_writer *cw, const struct oci_linux *l);
void write_resources (struct config_writer *cw, const struct oci_resources *r);
void write_seccomp (struct config_writer *cw, const struct oci_seccomp *s);

#endif
