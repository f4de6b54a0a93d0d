package dev.sluice.core.http;

/** The reason phrase of each status Sluice's edges answer with (RFC 9110's wording). */
public final class ReasonPhrases {

  private ReasonPhrases() {}

  /** {@code status}'s phrase, or {@code "Status"} for one no edge answers with. */
  public static String of(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 408 -> "Request Timeout";
      case 411 -> "Length Required";
      case 413 -> "Content Too Large";
      case 414 -> "URI Too Long";
      case 415 -> "Unsupported Media Type";
      case 422 -> "Unprocessable Content";
      case 431 -> "Request Header Fields Too Large";
      case 500 -> "Internal Server Error";
      case 501 -> "Not Implemented";
      case 502 -> "Bad Gateway";
      case 503 -> "Service Unavailable";
      case 504 -> "Gateway Timeout";
      case 505 -> "HTTP Version Not Supported";
      default -> "Status";
    };
  }
}
