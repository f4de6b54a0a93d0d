package dev.sluice.core.http;

import com.fasterxml.jackson.core.ErrorReportConfiguration;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.regex.Pattern;

/**
 * What a client is told about JSON that does not parse: Jackson's own sentence, where it stopped
 * (as an editor counts, like the YAML parser's errors), and none of the parser's internals.
 */
public final class JsonSyntaxErrors {

  /**
   * The parenthesis Jackson adds for an unclosed array or object, "(start marker at [Source:
   * REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 9])" or
   * "(for Array starting at [Source: ...])": a parser setting means nothing to a client.
   */
  private static final Pattern SOURCE_NOTE =
      Pattern.compile("\\s*\\([^()\\[]*\\[Source: [^]]*]\\)");

  /**
   * How much of an unrecognized token Jackson echoes (its default: 256 characters). A client
   * needs to see which token, not all of it; with the place added, an error stays short.
   */
  static final int MAX_TOKEN_ECHOED = 40;

  private JsonSyntaxErrors() {}

  /** A JSON factory whose parse errors echo at most {@link #MAX_TOKEN_ECHOED} of a token. */
  public static JsonFactory factory() {
    return JsonFactory.builder().errorReportConfiguration(ErrorReportConfiguration.builder()
        .maxErrorTokenLength(MAX_TOKEN_ECHOED).build()).build();
  }

  /** For example "Unexpected end-of-input: expected close marker for Array (line 1, column 35)". */
  public static String describe(JsonProcessingException e) {
    String message = SOURCE_NOTE.matcher(String.valueOf(e.getOriginalMessage())).replaceAll("");
    JsonLocation at = e.getLocation();
    return at == null || at.getLineNr() < 1 ? message
        : message + " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
  }
}
