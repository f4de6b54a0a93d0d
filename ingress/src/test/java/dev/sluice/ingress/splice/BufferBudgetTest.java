package dev.sluice.ingress.splice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.http.ApiError;
import org.junit.jupiter.api.Test;

class BufferBudgetTest {

  private static final long MIB = 1 << 20;

  @Test
  void largeUploadsStopShortOfTheReserveThatOrdinaryRequestsStillGet() throws Exception {
    BufferBudget budget = new BufferBudget(8 * MIB);
    BufferBudget.Account upload = budget.account();
    for (int i = 0; i < 7; i++) {
      upload.grow(MIB);
    }
    assertThatThrownBy(() -> upload.grow(MIB))
        .extracting(e -> ((MalformedHttpException) e).code())
        .isEqualTo(ApiError.Code.OVERLOADED);
    assertThat(budget.used()).as("a refused growth takes nothing").isEqualTo(7 * MIB);

    BufferBudget.Account ordinary = budget.account();
    ordinary.grow(BufferBudget.SMALL);
    assertThat(budget.used()).isEqualTo(7 * MIB + BufferBudget.SMALL);
    assertThatThrownBy(() -> ordinary.grow(1)).as("past SMALL it is a large upload too")
        .isInstanceOf(MalformedHttpException.class);
  }

  @Test
  void whatAConnectionHeldIsReturnedWhenItShrinksOrCloses() throws Exception {
    BufferBudget budget = new BufferBudget(8 * MIB);
    BufferBudget.Account account = budget.account();
    account.grow(3 * MIB);
    account.shrink(MIB);
    assertThat(budget.used()).isEqualTo(2 * MIB);
    account.close();
    account.close();
    assertThat(budget.used()).isZero();
    assertThat(account.held()).isZero();
  }
}
