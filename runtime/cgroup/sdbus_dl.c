/* Loading sd-bus on demand (see sdbus_dl.h). */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>

#define SDBUS_DL_NO_MACROS
#include "runtime/cgroup/sdbus_dl.h"

struct sdbus_api sdbus;

static int
load (void *handle, const char *name, void **slot, agentrt_error_t *err)
{
  *slot = dlsym (handle, name);
  if (*slot == NULL)
    return agentrt_error (err, 0, "--systemd-cgroup: libsystemd.so.0 has no "
                          "`%s`", name);
  return 0;
}

int
sdbus_load (agentrt_error_t *err)
{
  static bool loaded;
  void *handle;

  if (loaded)
    return 0;
  handle = dlopen ("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL)
    return agentrt_error (err, 0, "--systemd-cgroup: cannot load "
                          "libsystemd.so.0 (Debian package libsystemd0): %s",
                          dlerror ());
  if (0
      || load (handle, "sd_bus_call", (void **) &sdbus.p_sd_bus_call, err) < 0
      || load (handle, "sd_bus_call_method", (void **) &sdbus.p_sd_bus_call_method, err) < 0
      || load (handle, "sd_bus_error_free", (void **) &sdbus.p_sd_bus_error_free, err) < 0
      || load (handle, "sd_bus_error_is_set", (void **) &sdbus.p_sd_bus_error_is_set, err) < 0
      || load (handle, "sd_bus_flush_close_unref", (void **) &sdbus.p_sd_bus_flush_close_unref, err) < 0
      || load (handle, "sd_bus_match_signal", (void **) &sdbus.p_sd_bus_match_signal, err) < 0
      || load (handle, "sd_bus_message_append", (void **) &sdbus.p_sd_bus_message_append, err) < 0
      || load (handle, "sd_bus_message_close_container", (void **) &sdbus.p_sd_bus_message_close_container, err) < 0
      || load (handle, "sd_bus_message_new_method_call", (void **) &sdbus.p_sd_bus_message_new_method_call, err) < 0
      || load (handle, "sd_bus_message_open_container", (void **) &sdbus.p_sd_bus_message_open_container, err) < 0
      || load (handle, "sd_bus_message_read", (void **) &sdbus.p_sd_bus_message_read, err) < 0
      || load (handle, "sd_bus_message_unref", (void **) &sdbus.p_sd_bus_message_unref, err) < 0
      || load (handle, "sd_bus_new", (void **) &sdbus.p_sd_bus_new, err) < 0
      || load (handle, "sd_bus_open_system", (void **) &sdbus.p_sd_bus_open_system, err) < 0
      || load (handle, "sd_bus_process", (void **) &sdbus.p_sd_bus_process, err) < 0
      || load (handle, "sd_bus_set_address", (void **) &sdbus.p_sd_bus_set_address, err) < 0
      || load (handle, "sd_bus_slot_unref", (void **) &sdbus.p_sd_bus_slot_unref, err) < 0
      || load (handle, "sd_bus_start", (void **) &sdbus.p_sd_bus_start, err) < 0
      || load (handle, "sd_bus_unref", (void **) &sdbus.p_sd_bus_unref, err) < 0
      || load (handle, "sd_bus_wait", (void **) &sdbus.p_sd_bus_wait, err) < 0)
    return -1;
  loaded = true;
  return 0;
}
