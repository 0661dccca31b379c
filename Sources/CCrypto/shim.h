// OpenSSL's libcrypto: SHA-256 through EVP and constant-time comparison (CRYPTO_memcmp).
#include <openssl/crypto.h>
#include <openssl/evp.h>
