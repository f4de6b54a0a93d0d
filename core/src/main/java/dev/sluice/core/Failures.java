package dev.sluice.core;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What a failed future actually failed with. */
public final class Failures {

  private Failures() {}

  /** Strips the {@link CompletionException}/{@link ExecutionException} wrappers futures add. */
  public static Throwable cause(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
