package kwire.testee;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ProduceRequest;

/**
 * What a Kafka broker answers each partition of a Produce request it has read (the testee
 * protocol's "refused", conformance/FORMAT.md "Refused, not unreadable"). Kafka's parser keeps
 * a partition's records as bytes; the broker then looks at each partition on its own, with
 * these calls of kafka-clients, in this order:
 * <ol>
 *   <li>{@code ProduceRequest.validateRecords(version, records)}, from
 *       KafkaApis.handleProduceRequest, whose {@code catch (ApiException)} answers the partition
 *       with {@code Errors.forException}; any other exception escapes it and the broker answers
 *       the request with UNKNOWN_SERVER_ERROR;</li>
 *   <li>the log's read of the partition (UnifiedLog.analyzeAndValidateRecords, then
 *       LogValidator): every batch of {@code MemoryRecords.batches()} (the iterator stops
 *       silently at a partial last batch, whose bytes the log then drops:
 *       UnifiedLog.trimInvalidBytes), {@code producerId()} (ReplicaManager.handleProduceAppend),
 *       {@code isValid()} (size and CRC: CorruptRecordException), {@code compressionType()}, and
 *       the records read as LogValidator reads them with the default compression.type=producer
 *       (a compressed v2 batch in place, {@code skipKeyValueIterator}: record lengths are not
 *       checked there; any other batch with its iterator, {@code DefaultRecord.readFrom});
 *       ReplicaManager.appendToLocalLog answers the partition with {@code Errors.forException}
 *       of what they throw.</li>
 * </ol>
 * The log's own rules (base offset 0 from clients, timestamps, sequence numbers, an empty
 * batch, max.message.bytes) are not applied: like kwire, this testee judges whether the records
 * read, not whether a log would append them. The classes moved between 3.9 and 4.x
 * (org.apache.kafka.common.record → .record.internal), so records are handled by reflection.
 */
final class Broker {
  private Broker() {}

  /** The refused partitions of a Produce request body at `version`, or an empty array. */
  static ArrayNode refusals(ApiMessage body, short version) {
    ArrayNode out = Testee.JSON.createArrayNode();
    if (!(body instanceof ProduceRequestData)) {
      return out;
    }
    int t = 0;
    for (ProduceRequestData.TopicProduceData topic : ((ProduceRequestData) body).topicData()) {
      int p = 0;
      for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
        Object records = partition.records();
        Throwable fault = records == null ? null : fault(version, records);
        if (fault != null) {
          Errors e = Errors.forException(fault);
          out.addObject()
              .put("part", "ProduceRequest.TopicData[" + t + "].PartitionData[" + p + "].Records")
              .put("error_code", e.code())
              .put("error", e.name())
              .put("exception", fault.toString());
        }
        p++;
      }
      t++;
    }
    return out;
  }

  /** The exception the broker's checks of one partition's records throw, or null. */
  private static Throwable fault(short version, Object records) {
    try {
      invoke(validateRecords(), null, version, records);
    } catch (ApiException e) {
      return e;
    } catch (RuntimeException e) {
      // Escapes handleProduceRequest's catch: the whole request gets UNKNOWN_SERVER_ERROR.
      return e;
    }
    try {
      for (Object batch : (Iterable<?>) invoke(method(records, "batches"), records)) {
        byte magic = (Byte) invoke(method(batch, "magic"), batch);
        if (magic >= 2) {
          // ReplicaManager.handleProduceAppend: hasProducerId() reads the producerId at
          // byte 43 (IndexOutOfBoundsException for a batch under 51 bytes).
          invoke(method(batch, "producerId"), batch);
        }
        // UnifiedLog.analyzeAndValidateRecords: isValid() (size and CRC), the codec.
        if (!(Boolean) invoke(method(batch, "isValid"), batch)) {
          return new CorruptRecordException("Record is corrupt (the batch's isValid() is false)");
        }
        Object codec = invoke(method(batch, "compressionType"), batch);
        // LogValidator reads the records: a compressed v2 batch in place
        // (skipKeyValueIterator, compression.type=producer), any other batch whole.
        if (magic >= 2 && !"NONE".equals(codec.toString())) {
          Object it = invoke(skipKeyValueIterator(batch), batch, noCaching());
          try {
            while ((Boolean) invoke(method(it, "hasNext"), it)) {
              invoke(method(it, "next"), it);
            }
          } finally {
            invoke(method(it, "close"), it);
          }
        } else {
          for (Object record : (Iterable<?>) batch) {
            if (record == null) {
              throw new IllegalStateException("testee: a null record");
            }
          }
        }
      }
    } catch (RuntimeException e) {
      return e;
    }
    return null;
  }

  private static Class<?> bufferSupplier;

  /** BufferSupplier.NO_CACHING (org.apache.kafka.common.utils in 3.x, .utils.internals in 4.x). */
  private static Object noCaching() {
    try {
      if (bufferSupplier == null) {
        try {
          bufferSupplier = Class.forName("org.apache.kafka.common.utils.internals.BufferSupplier");
        } catch (ClassNotFoundException e) {
          bufferSupplier = Class.forName("org.apache.kafka.common.utils.BufferSupplier");
        }
      }
      return bufferSupplier.getField("NO_CACHING").get(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("testee: no BufferSupplier.NO_CACHING", e);
    }
  }

  private static Method skipKeyValueIterator(Object batch) {
    for (Method m : batch.getClass().getMethods()) {
      if (m.getName().equals("skipKeyValueIterator") && m.getParameterCount() == 1) {
        m.setAccessible(true);
        return m;
      }
    }
    throw new IllegalStateException(batch.getClass().getName() + " has no skipKeyValueIterator");
  }

  private static Method validateRecords;

  private static Method validateRecords() {
    if (validateRecords == null) {
      for (Method m : ProduceRequest.class.getMethods()) {
        if (m.getName().equals("validateRecords") && m.getParameterCount() == 2) {
          validateRecords = m;
        }
      }
      if (validateRecords == null) {
        throw new IllegalStateException("kafka-clients has no ProduceRequest.validateRecords");
      }
    }
    return validateRecords;
  }

  private static Method method(Object target, String name) {
    try {
      Method m = target.getClass().getMethod(name);
      m.setAccessible(true);
      return m;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(target.getClass().getName() + " has no " + name + "()", e);
    }
  }

  /** Calls `m`, rethrowing what the method itself throws (unwrapped). */
  private static Object invoke(Method m, Object target, Object... args) {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new IllegalStateException(cause);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }
}
