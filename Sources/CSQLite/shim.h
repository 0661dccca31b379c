#include <sqlite3.h>

// sqlite3_bind_text and sqlite3_bind_blob take a destructor pointer; SQLITE_TRANSIENT is a
// macro that casts -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
