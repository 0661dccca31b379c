// libpq, PostgreSQL's C client library (Debian: libpq-dev, headers in /usr/include/postgresql).
#include <libpq-fe.h>
