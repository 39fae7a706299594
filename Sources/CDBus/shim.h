// C helpers over libdbus for the desktop sink: the freedesktop notification calls
// (Notify, CloseNotification) and their two signals, built and read in C, where libdbus's
// varargs and iterators are at home. Only ToastPipeline/Desktop imports this.
#ifndef CDBUS_SHIM_H
#define CDBUS_SHIM_H

#include <dbus/dbus.h>
#include <string.h>

#define CDBUS_NAME "org.freedesktop.Notifications"
#define CDBUS_PATH "/org/freedesktop/Notifications"
#define CDBUS_TIMEOUT_MS 2000

/// A private connection to the session bus, or NULL with `error` set.
static inline DBusConnection *cdbus_open_session(DBusError *error) {
    DBusConnection *connection = dbus_bus_get_private(DBUS_BUS_SESSION, error);
    if (connection) dbus_connection_set_exit_on_disconnect(connection, FALSE);
    return connection;
}

static inline void cdbus_close(DBusConnection *connection) {
    dbus_connection_close(connection);
    dbus_connection_unref(connection);
}

/// 1 when some program owns the notification service's name, 0 when none, -1 on error.
static inline int cdbus_server_present(DBusConnection *connection, DBusError *error) {
    dbus_bool_t owned = dbus_bus_name_has_owner(connection, CDBUS_NAME, error);
    return dbus_error_is_set(error) ? -1 : (owned ? 1 : 0);
}

/// Asks for the service's NotificationClosed and ActionInvoked signals.
static inline int cdbus_subscribe(DBusConnection *connection, DBusError *error) {
    dbus_bus_add_match(connection,
        "type='signal',interface='" CDBUS_NAME "',member='NotificationClosed'", error);
    if (dbus_error_is_set(error)) return 0;
    dbus_bus_add_match(connection,
        "type='signal',interface='" CDBUS_NAME "',member='ActionInvoked'", error);
    return !dbus_error_is_set(error);
}

/// Notify(app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout):
/// with a default action (so a click comes back), the urgency hint, and no expiry of its own.
/// Returns the server's id for it, or 0 with `error` set.
static inline dbus_uint32_t cdbus_notify(DBusConnection *connection, const char *app, dbus_uint32_t replaces,
                                         const char *icon, const char *summary, const char *body,
                                         unsigned char urgency, DBusError *error) {
    DBusMessage *call = dbus_message_new_method_call(CDBUS_NAME, CDBUS_PATH, CDBUS_NAME, "Notify");
    if (!call) { dbus_set_error_const(error, DBUS_ERROR_NO_MEMORY, "out of memory"); return 0; }
    DBusMessageIter args, actions, hints, entry, variant;
    dbus_int32_t expire = 0;
    const char *default_action = "default", *default_label = "Open", *urgency_key = "urgency";
    dbus_message_iter_init_append(call, &args);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &app);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_UINT32, &replaces);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &icon);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &summary);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &body);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, DBUS_TYPE_STRING_AS_STRING, &actions);
    dbus_message_iter_append_basic(&actions, DBUS_TYPE_STRING, &default_action);
    dbus_message_iter_append_basic(&actions, DBUS_TYPE_STRING, &default_label);
    dbus_message_iter_close_container(&args, &actions);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &hints);
    dbus_message_iter_open_container(&hints, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &urgency_key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, DBUS_TYPE_BYTE_AS_STRING, &variant);
    dbus_message_iter_append_basic(&variant, DBUS_TYPE_BYTE, &urgency);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(&hints, &entry);
    dbus_message_iter_close_container(&args, &hints);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_INT32, &expire);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, call, CDBUS_TIMEOUT_MS, error);
    dbus_message_unref(call);
    if (!reply) return 0;
    dbus_uint32_t id = 0;
    if (!dbus_message_get_args(reply, error, DBUS_TYPE_UINT32, &id, DBUS_TYPE_INVALID)) id = 0;
    dbus_message_unref(reply);
    return id;
}

/// CloseNotification(id); 0 with `error` set when the call failed.
static inline int cdbus_close_notification(DBusConnection *connection, dbus_uint32_t id, DBusError *error) {
    DBusMessage *call = dbus_message_new_method_call(CDBUS_NAME, CDBUS_PATH, CDBUS_NAME, "CloseNotification");
    if (!call) { dbus_set_error_const(error, DBUS_ERROR_NO_MEMORY, "out of memory"); return 0; }
    dbus_message_append_args(call, DBUS_TYPE_UINT32, &id, DBUS_TYPE_INVALID);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, call, CDBUS_TIMEOUT_MS, error);
    dbus_message_unref(call);
    if (!reply) return 0;
    dbus_message_unref(reply);
    return 1;
}

enum { CDBUS_NONE = 0, CDBUS_CLOSED = 1, CDBUS_ACTION = 2, CDBUS_DISCONNECTED = -1 };

/// The next of the service's signals already received (reading what the socket holds, without
/// waiting): CDBUS_CLOSED with the id and reason, CDBUS_ACTION with the id, CDBUS_NONE, or
/// CDBUS_DISCONNECTED.
static inline int cdbus_next_signal(DBusConnection *connection, dbus_uint32_t *id, dbus_uint32_t *reason) {
    if (!dbus_connection_read_write(connection, 0)) return CDBUS_DISCONNECTED;
    DBusMessage *message;
    while ((message = dbus_connection_pop_message(connection)) != NULL) {
        int kind = CDBUS_NONE;
        if (dbus_message_is_signal(message, CDBUS_NAME, "NotificationClosed")) {
            if (dbus_message_get_args(message, NULL, DBUS_TYPE_UINT32, id, DBUS_TYPE_UINT32, reason, DBUS_TYPE_INVALID))
                kind = CDBUS_CLOSED;
        } else if (dbus_message_is_signal(message, CDBUS_NAME, "ActionInvoked")) {
            const char *action = NULL;
            if (dbus_message_get_args(message, NULL, DBUS_TYPE_UINT32, id, DBUS_TYPE_STRING, &action, DBUS_TYPE_INVALID)
                && action && strcmp(action, "default") == 0)
                kind = CDBUS_ACTION;
        } else if (dbus_message_is_signal(message, DBUS_INTERFACE_LOCAL, "Disconnected")) {
            dbus_message_unref(message);
            return CDBUS_DISCONNECTED;
        }
        dbus_message_unref(message);
        if (kind != CDBUS_NONE) return kind;
    }
    return dbus_connection_get_is_connected(connection) ? CDBUS_NONE : CDBUS_DISCONNECTED;
}

/// The socket to poll for incoming signals, or -1.
static inline int cdbus_descriptor(DBusConnection *connection) {
    int fd = -1;
    return dbus_connection_get_unix_fd(connection, &fd) ? fd : -1;
}

#endif
