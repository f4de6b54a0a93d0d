package dev.sluice.ingress.splice;

/** A message the splice cannot frame safely; the connection it came on is closed. */
class MalformedHttpException extends Exception {

  MalformedHttpException(String message) {
    super(message, null, false, false);
  }
}
