/* libsystemd's sd-bus, loaded only when --systemd-cgroup needs it: linking
 * it would make every agentrt start pay for loading libsystemd and its
 * dependencies (about a millisecond of CPU), for a feature most calls never
 * use.  Include after <systemd/sd-bus.h>: the sd_bus_* names then go
 * through the table filled by sdbus_load. */
#ifndef AGENTRT_SDBUS_DL_H
#define AGENTRT_SDBUS_DL_H

#include <systemd/sd-bus.h>

#include "common/error.h"

struct sdbus_api
{
  __typeof__ (sd_bus_call) *p_sd_bus_call;
  __typeof__ (sd_bus_call_method) *p_sd_bus_call_method;
  __typeof__ (sd_bus_error_free) *p_sd_bus_error_free;
  __typeof__ (sd_bus_error_is_set) *p_sd_bus_error_is_set;
  __typeof__ (sd_bus_flush_close_unref) *p_sd_bus_flush_close_unref;
  __typeof__ (sd_bus_match_signal) *p_sd_bus_match_signal;
  __typeof__ (sd_bus_message_append) *p_sd_bus_message_append;
  __typeof__ (sd_bus_message_close_container) *p_sd_bus_message_close_container;
  __typeof__ (sd_bus_message_new_method_call) *p_sd_bus_message_new_method_call;
  __typeof__ (sd_bus_message_open_container) *p_sd_bus_message_open_container;
  __typeof__ (sd_bus_message_read) *p_sd_bus_message_read;
  __typeof__ (sd_bus_message_unref) *p_sd_bus_message_unref;
  __typeof__ (sd_bus_new) *p_sd_bus_new;
  __typeof__ (sd_bus_open_system) *p_sd_bus_open_system;
  __typeof__ (sd_bus_process) *p_sd_bus_process;
  __typeof__ (sd_bus_set_address) *p_sd_bus_set_address;
  __typeof__ (sd_bus_slot_unref) *p_sd_bus_slot_unref;
  __typeof__ (sd_bus_start) *p_sd_bus_start;
  __typeof__ (sd_bus_unref) *p_sd_bus_unref;
  __typeof__ (sd_bus_wait) *p_sd_bus_wait;
};

extern struct sdbus_api sdbus;

/* dlopen()s libsystemd.so.0 once; < 0 with a message naming the package. */
int sdbus_load (agentrt_error_t *err);

#ifndef SDBUS_DL_NO_MACROS
#define sd_bus_call (sdbus.p_sd_bus_call)
#define sd_bus_call_method (sdbus.p_sd_bus_call_method)
#define sd_bus_error_free (sdbus.p_sd_bus_error_free)
#define sd_bus_error_is_set (sdbus.p_sd_bus_error_is_set)
#define sd_bus_flush_close_unref (sdbus.p_sd_bus_flush_close_unref)
#define sd_bus_match_signal (sdbus.p_sd_bus_match_signal)
#define sd_bus_message_append (sdbus.p_sd_bus_message_append)
#define sd_bus_message_close_container (sdbus.p_sd_bus_message_close_container)
#define sd_bus_message_new_method_call (sdbus.p_sd_bus_message_new_method_call)
#define sd_bus_message_open_container (sdbus.p_sd_bus_message_open_container)
#define sd_bus_message_read (sdbus.p_sd_bus_message_read)
#define sd_bus_message_unref (sdbus.p_sd_bus_message_unref)
#define sd_bus_new (sdbus.p_sd_bus_new)
#define sd_bus_open_system (sdbus.p_sd_bus_open_system)
#define sd_bus_process (sdbus.p_sd_bus_process)
#define sd_bus_set_address (sdbus.p_sd_bus_set_address)
#define sd_bus_slot_unref (sdbus.p_sd_bus_slot_unref)
#define sd_bus_start (sdbus.p_sd_bus_start)
#define sd_bus_unref (sdbus.p_sd_bus_unref)
#define sd_bus_wait (sdbus.p_sd_bus_wait)
#endif

#endif
