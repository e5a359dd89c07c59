// The AddressSanitizer options of every runner process (kiln-sandbox, the GPU runners), for a
// sanitizer build (make sanitize); the sanitizer runtime reads this hook only when the process
// is sanitized. Included once, by each runner's main file.
//  - A candidate's crash signals reach the client as signals, as in a plain build: the
//    sanitizer would otherwise catch them and exit with status 1.
//  - No leak check at exit: it starts a tracer process, which the lockdown forbids
//    (runtime/sandbox_lockdown.h), and a runner ends with its kernel's memory still mapped.
#pragma once

extern "C" const char* __asan_default_options() {
  return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:"
         "detect_leaks=0";
}
