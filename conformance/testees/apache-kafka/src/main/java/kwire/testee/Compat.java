package kwire.testee;

import java.lang.reflect.Method;
import java.nio.ByteBuffer;

/**
 * The few kafka-clients classes that moved between the releases this testee is built
 * against (4.4.0, and 3.9.2 for the versions 4.x removed): AppInfoParser
 * (org.apache.kafka.common.utils in 3.x, .utils.internals in 4.x) and MemoryRecords /
 * BaseRecords (org.apache.kafka.common.record in 3.x, .record.internal in 4.x). Looked up
 * by name once, so that one source compiles against both.
 */
final class Compat {
  private Compat() {}

  private static Class<?> first(String... names) {
    for (String n : names) {
      try {
        return Class.forName(n);
      } catch (ClassNotFoundException e) {
        // try the next
      }
    }
    throw new IllegalStateException("kafka-clients has none of " + String.join(", ", names));
  }

  private static final Class<?> APP_INFO = first(
      "org.apache.kafka.common.utils.internals.AppInfoParser",
      "org.apache.kafka.common.utils.AppInfoParser");
  private static final Class<?> MEMORY_RECORDS = first(
      "org.apache.kafka.common.record.internal.MemoryRecords",
      "org.apache.kafka.common.record.MemoryRecords");

  private static Object call(Class<?> c, Object target, String method) {
    try {
      Method m = c.getMethod(method);
      return m.invoke(target);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(c.getName() + "." + method + ": " + e, e);
    }
  }

  /** AppInfoParser.getVersion(): "4.4.0". */
  static String kafkaVersion() {
    return (String) call(APP_INFO, null, "getVersion");
  }

  /** AppInfoParser.getCommitId(). */
  static String commitId() {
    return (String) call(APP_INFO, null, "getCommitId");
  }

  /** The bytes of a MemoryRecords, or null for another BaseRecords. */
  static ByteBuffer memoryRecordsBuffer(Object records) {
    if (!MEMORY_RECORDS.isInstance(records)) {
      return null;
    }
    return ((ByteBuffer) call(MEMORY_RECORDS, records, "buffer")).duplicate();
  }

  /** BaseRecords.sizeInBytes(). */
  static int sizeInBytes(Object records) {
    return (Integer) call(records.getClass(), records, "sizeInBytes");
  }
}
