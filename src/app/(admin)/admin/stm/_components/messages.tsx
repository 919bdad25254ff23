import { Empty } from "@/app/_components/status";
import { formatWhen } from "@/lib/format";
import { messageAuthor } from "@/lib/stm-view";
import type { RouterOutputs } from "@/trpc/types";
import styles from "../stm.module.css";

type Message = RouterOutputs["stm"]["entry"]["messages"][number];

/** The cached messages, oldest first as they were said; the assistant's on the right. */
export function Messages({ messages }: { messages: Message[] }) {
  if (messages.length === 0) return <Empty>No cached messages: none since the server started (without Redis the cache starts empty), or the cache let them go.</Empty>;
  return (
    <ol className={styles.messages} data-testid="stm-messages">
      {messages.map((m, i) => {
        const { author, turnOf } = messageAuthor(m);
        return (
          <li key={i} className={m.role === "assistant" ? `${styles.message} ${styles.assistant}` : styles.message}>
            <div className={styles.messageHead}>
              <strong>{author}</strong>
              {author !== m.role && <span>{m.role}</span>}
              {turnOf && <span>in {turnOf}&apos;s turn</span>}
              <time dateTime={m.at} title={m.at}>
                {formatWhen(m.at)}
              </time>
            </div>
            <p className={styles.content}>{m.content}</p>
          </li>
        );
      })}
    </ol>
  );
}
