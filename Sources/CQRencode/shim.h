// libqrencode: QR code symbols for the connect-session links the dashboard shows.
#include <qrencode.h>
