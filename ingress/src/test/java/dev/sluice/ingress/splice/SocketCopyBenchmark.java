package dev.sluice.ingress.splice;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the splice's heap read buffer costs per token against a direct one (issue 13 asked): one
 * write into a loopback socket and one read out of it, as the splice does per token, with
 * <ul>
 *   <li>{@code heap}: the splice's way. The JDK copies a heap buffer through a cached temporary
 *       direct buffer on every read and every write;</li>
 *   <li>{@code direct}: a direct read buffer, written from directly, plus the one copy into a
 *       heap array the splice would still need (its parsers read arrays).</li>
 * </ul>
 * The bytes: a token's SSE chunk (160) and a whole 64-token answer read at once (15,500). Both
 * sockets are on the benchmark's thread, blocking, so the figure is the system calls and the
 * copies, no wake-up. Run: {@code ./jmh.sh ingress SocketCopyBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SocketCopyBenchmark {

  @Param({"160", "15500"})
  int bytes;

  @Param({"heap", "direct"})
  String buffer;

  private ServerSocketChannel server;
  private SocketChannel writer;
  private SocketChannel reader;
  private ByteBuffer out;
  private ByteBuffer in;
  private final byte[] parsed = new byte[64 * 1024];

  @Setup(Level.Trial)
  public void connect() throws IOException {
    server = ServerSocketChannel.open();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    writer = SocketChannel.open(server.getLocalAddress());
    reader = server.accept();
    writer.socket().setTcpNoDelay(true);
    boolean direct = buffer.equals("direct");
    in = direct ? ByteBuffer.allocateDirect(64 * 1024) : ByteBuffer.allocate(64 * 1024);
    out = direct ? ByteBuffer.allocateDirect(bytes) : ByteBuffer.allocate(bytes);
    for (int i = 0; i < bytes; i++) {
      out.put(i, (byte) ('a' + i % 26));
    }
  }

  @TearDown(Level.Trial)
  public void close() throws IOException {
    writer.close();
    reader.close();
    server.close();
  }

  /** One chunk through the socket pair: written, read whole, and (direct) copied for parsing. */
  @Benchmark
  public int writeThenRead() throws IOException {
    out.clear();
    while (out.hasRemaining()) {
      writer.write(out);
    }
    int read = 0;
    in.clear();
    while (read < bytes) {
      int n = reader.read(in);
      if (n < 0) {
        throw new IOException("closed");
      }
      read += n;
    }
    if (in.isDirect()) {
      in.get(0, parsed, 0, read);
      return parsed[read - 1];
    }
    return in.array()[read - 1];
  }
}
