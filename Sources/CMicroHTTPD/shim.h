#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon is variadic; Swift cannot call it. This wrapper takes the options that
// Footprint uses as an MHD_OptionItem array (MHD_OPTION_ARRAY), which is not variadic.
static inline struct MHD_Daemon *cmhd_start_daemon(unsigned int flags, uint16_t port,
    MHD_AcceptPolicyCallback apc, void *apc_cls,
    MHD_AccessHandlerCallback dh, void *dh_cls,
    struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, apc, apc_cls, dh, dh_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

// MHD_get_daemon_info is variadic; this returns the port the daemon listens on (0 on failure).
static inline uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

// MHD_get_connection_info is variadic; this returns the address of the connection's client
// (MHD_CONNECTION_INFO_CLIENT_ADDRESS), or NULL when libmicrohttpd does not know it.
static inline const struct sockaddr *cmhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

// MHD_get_connection_info is variadic; this returns the connection's socket, or -1.
static inline int cmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}
