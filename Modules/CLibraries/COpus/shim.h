#include <opus.h>  /* pkg-config: -I/usr/include/opus */
